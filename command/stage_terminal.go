package command

import (
	"errors"
	"time"

	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// errGoexit is the run error of a run that called runtime.Goexit (t.Fatal in a test).
var errGoexit = errors.New("command: run called runtime.Goexit")

// terminal is the cleanup every execution that got past the request cache runs exactly
// once, whatever its outcome (Hystrix's doOnTerminate and doOnUnsubscribe): it records
// CANCELLED for a caller that went away, publishes the completion to metrics and the
// event notifier, and calls onSuccess, onError or onUnsubscribe. Permits are released by
// the stages that took them, inside it.
type terminal struct{}

func (terminal) enter(x *execution) verdict {
	x.open()
	return pending
}

func (terminal) exit(x *execution, v verdict) verdict {
	switch v {
	case cancelled:
		x.addEvent(metrics.Cancelled)
		x.err = x.cancelErr()
	case aborted:
		x.err = &Error{Type: CommandException, CommandKey: x.ks.info.CommandKey, Cause: errGoexit}
	}
	x.publish(v)
	h := x.hook
	if h == nil {
		return v
	}
	switch v {
	case succeeded, fellBack:
		x.ks.rt.safeHook(func() { h.OnSuccess(x.parent, x.ks.info) })
	case cancelled:
		x.ks.rt.safeHook(func() { h.OnUnsubscribe(x.parent, x.ks.info) })
		x.endThread() // after onUnsubscribe, as Hystrix unsubscribes from the outside in
	default:
		x.ks.rt.safeHook(func() { h.OnError(x.parent, x.ks.info, x.err) })
	}
	return v
}

// publish records the execution in metrics and tells the event notifier.
func (x *execution) publish(v verdict) {
	var total time.Duration
	switch {
	case !x.timed:
	case v == succeeded && x.hook == nil && x.thread == nil:
		total = x.end - x.start // nothing ran after the run: its end is the terminal time
	default:
		total = x.now() - x.start
	}
	res := x.result(total)
	x.ks.metrics.MarkComplete(res)
	if x.thread != nil {
		x.thread.tp.MarkComplete(res)
	}
	if x.admitted {
		x.ks.breaker.Report(x.ticket, outcome(x.primary))
	}
	if v != cancelled { // after an unsubscribe the execution is not complete, as in Hystrix
		x.total.Store(int64(max(total, 0)) + 1)
	}
	if x.executed && x.notifies {
		if n := x.ks.rt.hooks.EventNotifier(); !hooks.IsNoopNotifier(n) {
			events := x.ExecutionEvents()
			x.ks.rt.safeHook(func() {
				n.MarkCommandExecution(x.parent, x.ks.info.CommandKey, x.ks.props.IsolationStrategy.Get(), x.runLatency(), events)
			})
		}
	}
}

// result builds the metrics record of the execution: what metrics read of it (events,
// whether and where run executed, latencies), the rest being on the Command's accessors.
func (x *execution) result(total time.Duration) metrics.ExecutionResult {
	var collapsed int
	if x.rare != nil {
		collapsed = x.rare.collapsed
	}
	var latency time.Duration
	if x.executed {
		latency = x.runLatency()
	}
	events := metrics.NewEventCounts(x.events.Load(), int(x.emits.Load()), int(x.fbEmits.Load()), collapsed)
	return metrics.NewExecutionResult(events, x.executed, x.thread != nil, latency, total)
}

// onStart calls the onStart hook with the caller's context; the context it returns is the
// execution's from then on. A failing hook fails the command fast: no fallback and no
// effect on health, but a BAD_REQUEST in metrics so that it shows on the dashboard.
type onStart struct{}

func (onStart) enter(x *execution) verdict {
	h := x.hook
	if h == nil {
		return pending
	}
	err := x.ks.rt.hookErr(func() error {
		ctx, err := h.OnStart(x.parent, x.ks.info)
		if err == nil && ctx != nil {
			x.parent = ctx
		}
		return err
	})
	if err == nil {
		return pending
	}
	x.addEvent(metrics.BadRequest)
	x.err = &Error{Type: CommandException, CommandKey: x.ks.info.CommandKey, Cause: err}
	return errored
}

func (onStart) exit(_ *execution, v verdict) verdict { return v }
