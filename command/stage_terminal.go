package command

import (
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// terminal is the cleanup every execution that got past the request cache runs exactly
// once, whatever its outcome (Hystrix's doOnTerminate and doOnUnsubscribe), in a deferred
// call so that an unwinding goroutine runs it too: it records CANCELLED for a caller that
// went away, keeps the caller's error for the accessors, publishes the completion to
// metrics and the event notifier, and calls onSuccess, onError or onUnsubscribe. Permits
// are released by the stages that took them, inside it.
type terminal struct{}

func (terminal) enter(*execution, *attempt) (verdict, bool) { return verdict{}, true }

func (terminal) exit(x *execution, _ *attempt, v verdict) verdict {
	v = x.conclude(v)
	x.publish(v.kind)
	if x.hook != nil {
		x.endHooks(v.kind)
	}
	return v
}

// conclude returns the verdict the door sees for final verdict v, and keeps the caller's
// error for the accessors.
func (x *execution) conclude(v verdict) verdict {
	switch v.kind {
	case cancelled:
		x.addEvent(metrics.Cancelled)
		v.cause = x.cancelErr()
	case aborted: // user code called runtime.Goexit on this goroutine
		if x.failedErr == nil {
			x.failedErr = errGoexit
		}
		v.cause = &Error{Type: CommandException, CommandKey: x.ks.info.CommandKey, Cause: errGoexit}
	}
	x.err = v.cause
	return v
}

// endHooks calls onSuccess, onError or onUnsubscribe (then onThreadComplete) for the
// final verdict of kind k.
func (x *execution) endHooks(k kind) {
	h := x.hook
	switch k {
	case succeeded, fellBack:
		x.ks.rt.safeHook(func() { h.OnSuccess(x.parent, x.ks.info) })
	case cancelled:
		x.ks.rt.safeHook(func() { h.OnUnsubscribe(x.parent, x.ks.info) })
		x.lastAttempt().endThread() // after onUnsubscribe, as Hystrix unsubscribes from the outside in
	default:
		x.ks.rt.safeHook(func() { h.OnError(x.parent, x.ks.info, x.err) })
	}
}

// publish records the execution in metrics and tells the event notifier.
func (x *execution) publish(k kind) {
	a := x.lastAttempt()
	var total time.Duration
	switch {
	case !x.timed: // nothing was timed (short circuit, rejection, onStart)
	case x.endsAtRun(a, k):
		total = a.end - x.start // the run's end is the terminal time: no clock read of its own
	default:
		total = x.now() - x.start
	}
	executed := x.record(a, x.outer|a.events, total, false)
	if k != cancelled { // after an unsubscribe the execution is not complete, as in Hystrix
		x.total.Store(int64(max(total, 0)) + 1)
	}
	if executed && x.notifies {
		x.markExecution(a)
	}
}

// endsAtRun reports whether the end of a's run stands for the terminal time of an
// execution ending with k: the run was the execution's only attempt, on the caller's
// goroutine or on a pool goroutine that handed its verdict back (the hand-back, a
// goroutine switch, is not counted), not hedged, and nothing but plugins ran after it (the
// hooks' and the notifier's time is theirs, not the command's; no fallback: the total
// latency counts the fallback's time, as Hystrix's does, for one more clock read).
func (x *execution) endsAtRun(a *attempt, k kind) bool {
	return (a.thread == nil || a.thread.handedBack()) && a.executed && !a.hedged && a == &x.first &&
		k != aborted && x.events.Load()&fallbackRan == 0
}

// fallbackRan are the events of an execution whose fallback ran.
const fallbackRan = 1<<metrics.FallbackSuccess | 1<<metrics.FallbackFailure

// markExecution calls the event notifier's MarkCommandExecution, unless it is the no-op
// one or leaves it out (hooks.ExecutionIgnorer).
func (x *execution) markExecution(a *attempt) {
	n := x.ks.rt.hooks.EventNotifier()
	if hooks.IsNoopNotifier(n) || hooks.IgnoresExecutions(n) {
		return
	}
	events := x.eventList()
	x.ks.rt.safeHook(func() {
		n.MarkCommandExecution(x.parent, x.ks.info.CommandKey, config.ExecutionIsolationStrategy.In(x.ks.props).Get(), a.runLatency(), events)
	})
}

// retire publishes an attempt that is not the last one (a stage runs the rest of the chain
// again): its own events and latencies reach metrics as a completion of their own, so
// that every attempt counts for health and none keeps holding the key's concurrency. The
// execution's own events and its terminal event come with the last attempt (terminal).
func (x *execution) retire(a *attempt) {
	x.record(a, a.events, x.now()-a.start, false)
}

// record folds the completion of attempt a with events into the key's metrics (and its
// pool's; without its latencies when cut, a run another attempt's outcome cut short) and
// reports whether a's run started.
func (x *execution) record(a *attempt, events uint32, total time.Duration, cut bool) (executed bool) {
	executed = a.ran()
	var latency time.Duration
	if executed {
		latency = a.runLatency()
	}
	// Each result goes straight into its call, built in one expression: a result kept in
	// a variable and changed (res = res.WithEndMarked()) is copied whole through memory
	// on each change, in 16-byte moves that stall on the smaller stores that built it.
	ev, inThread := x.counts(events), a.thread != nil
	if t := a.thread; t != nil && t.tp != nil { // the pool's metrics: the same result, before cut and end marks
		t.tp.MarkComplete(metrics.NewExecutionResult(ev, executed, true, latency, total))
	}
	m := x.ks.metrics
	switch {
	case !cut && !a.permit:
		m.MarkComplete(metrics.NewExecutionResult(ev, executed, inThread, latency, total))
	case !cut:
		m.MarkComplete(metrics.NewExecutionResult(ev, executed, inThread, latency, total).WithEndMarked())
	case !a.permit:
		m.MarkComplete(metrics.NewExecutionResult(ev, executed, inThread, latency, total).WithoutLatency())
	default:
		m.MarkComplete(metrics.NewExecutionResult(ev, executed, inThread, latency, total).WithoutLatency().WithEndMarked())
	}
	return executed
}

// counts returns events with the counts of the events that repeat.
func (x *execution) counts(events uint32) metrics.EventCounts {
	var collapsed int
	if x.rare != nil {
		collapsed = x.rare.collapsed
	}
	c := metrics.NewEventCounts(events, int(x.emits.Load()), int(x.fbEmits.Load()), collapsed)
	if events&(1<<metrics.StreamResumed) != 0 {
		c = c.Add(metrics.StreamResumed, x.count(metrics.StreamResumed)-1) // NewEventCounts counted 1
	}
	return c
}

// onStart calls the onStart hook with the caller's context; the context it returns is the
// execution's from then on. A failing hook fails the command fast: no fallback and no
// effect on health, but a BAD_REQUEST in metrics so that it shows on the dashboard.
type onStart struct{}

func (onStart) enter(x *execution, _ *attempt) (verdict, bool) {
	h := x.hook
	if h == nil {
		return verdict{}, true
	}
	err := x.ks.rt.hookErr(func() error {
		ctx, err := h.OnStart(x.parent, x.ks.info)
		if err == nil && ctx != nil {
			x.parent = ctx
		}
		return err
	})
	if err != nil {
		x.addEvent(metrics.BadRequest)
		return verdict{kind: errored, cause: &Error{Type: CommandException, CommandKey: x.ks.info.CommandKey, Cause: err}}, false
	}
	return verdict{}, true
}

func (onStart) exit(_ *execution, _ *attempt, v verdict) verdict { return v }
