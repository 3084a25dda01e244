package command

import (
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// succeed ends the execution successfully (the value was already emitted).
func (x *exec) succeed() { x.succeedAt(never) }

// fail ends the execution with err (after the failure and fallback events are recorded).
func (x *exec) fail(err error) error {
	x.execErr = err
	x.terminate(never)
	if h := x.hook; h != nil {
		safeHook(func() { h.OnError(x.parent, x.ks.info, err) })
	}
	return err
}

// succeedAt is succeed with the current time already read (never: read it if needed).
func (x *exec) succeedAt(now time.Duration) {
	x.terminate(now)
	if h := x.hook; h != nil {
		safeHook(func() { h.OnSuccess(x.parent, x.ks.info) })
	}
}

// unsubscribed ends an execution whose caller went away: CANCELLED and onUnsubscribe.
func (x *exec) unsubscribed() error {
	err := x.cancelErr()
	x.addEvent(metrics.Cancelled)
	x.execErr = err
	x.verdict = breaker.Cancelled
	if h := x.hook; h != nil {
		safeHook(func() { h.OnUnsubscribe(x.parent, x.ks.info) })
	}
	x.terminate(never)
	return err
}

// terminate is the cleanup every execution runs exactly once, at now (never: read the
// clock if the execution has a start time): release the semaphore, the timer and the
// parent watch, record the latency, publish the completion.
func (x *exec) terminate(now time.Duration) {
	if x.timed { // else run never started: its context was never handed out
		x.rc.release()
		if x.pw != nil && x.pw.timer != nil {
			x.pw.timer.Stop()
		}
	}
	if x.semHeld {
		x.semHeld = false
		x.ks.execSem.Release()
	}
	var total time.Duration
	if x.timed {
		if now == never {
			now = x.now()
		}
		total = now - x.start
	}
	res := x.result(total)
	x.ks.metrics.MarkComplete(res)
	if x.verdict != 0 { // after MarkComplete: circuitBreaker.evaluateOnFailure counts it
		x.ks.breaker.Report(x.ticket, x.verdict)
	}
	if x.pw != nil && x.pw.tp != nil {
		x.pw.tp.MarkComplete(res)
	}
	x.setTotal(total)
	if x.executed {
		if n := x.ks.rt.hooks.EventNotifier(); !hooks.IsNoopNotifier(n) {
			events := x.ExecutionEvents()
			safeHook(func() { n.MarkCommandExecution(x.parent, x.ks.info.CommandKey, x.isolation(), x.execLatency, events) })
		}
	}
}

// result builds the metrics record of the execution.
func (x *exec) result(total time.Duration) metrics.ExecutionResult {
	var r metrics.ExecutionResult
	if x.executed {
		r = r.WithExecuted(x.inThread).WithExecutionLatency(x.execLatency)
	}
	if x.timed {
		r = r.WithStartTime(x.startTime()).WithTotalLatency(total)
	}
	if x.failedErr != nil {
		r = r.WithFailedExecutionError(x.failedErr)
	}
	if x.execErr != nil {
		r = r.WithExecutionError(x.execErr)
	}
	var collapsed int
	if x.rare != nil {
		collapsed = x.rare.collapsed
	}
	return r.WithEventCounts(metrics.NewEventCounts(x.events.Load(),
		int(x.emits.Load()), int(x.fbEmits.Load()), collapsed))
}

// failFast ends an execution whose onStart hook failed: no fallback, no health effect.
func (x *exec) failFast(cause error) error {
	err := &Error{Type: CommandException, CommandKey: x.ks.info.CommandKey, Cause: cause}
	x.execErr = err
	x.terminate(never)
	return err
}

// fallbackGate decides whether the fallback may run (REFERENCE §1.9): disabled, missing
// or rejected by the fallback semaphore end the execution with a runtime error. On nil
// the caller holds a fallback permit and calls OnFallbackStart next.
func (x *exec) fallbackGate(ft FailureType, cause error, defined bool) error {
	key := x.ks.info.CommandKey
	if !x.ks.props.FallbackEnabled.Get() {
		return x.fail(&Error{Type: ft, CommandKey: key, Cause: cause, FallbackErr: ErrFallbackDisabled})
	}
	if !defined {
		x.addEvent(metrics.FallbackMissing)
		return x.fail(&Error{Type: ft, CommandKey: key, Cause: cause, FallbackErr: ErrFallbackMissing})
	}
	if !x.ks.fallbackSem.TryAcquire() {
		x.addEvent(metrics.FallbackRejection)
		return x.fail(&Error{Type: RejectedSemaphoreFallback, CommandKey: key, Cause: cause, FallbackErr: ErrFallbackRejected})
	}
	return nil
}
