package command

import (
	"errors"
	"time"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// errUnsubscribed is what a stream's run or fallback returns when its subscriber went
// away (a send failed, or a range loop broke).
var errUnsubscribed = errors.New("command: subscriber left")

// run is the innermost stage: the execution-start hooks, the user's run (or construct and
// its stream), then the run's claim of the race and the classification of its error. It
// always decides, so it has no exit. Under THREAD isolation threadPool runs it on a pool
// goroutine instead.
type run struct{}

func (run) enter(x *execution) verdict {
	v, _ := x.runOnce()
	return v
}

// runOnce calls run and claims the race for what happened: the clock decides a lazy
// timeout, a caller gone meanwhile makes it a cancel, else the run completed. It reports
// the verdict and whether this claim won (a loser gets the winner's verdict).
func (x *execution) runOnce() (verdict, bool) {
	if x.thread == nil {
		x.executed = true
		x.ks.metrics.MarkStart()
	}
	err := x.callRun()
	end := x.now()
	x.end = end
	x.ks.deadlines.remove(x)
	switch {
	case !x.racing():
	case x.thread == nil && x.overdue(end): // no timer was armed: the clock decides
		if x.claim(phaseTimedOut) {
			return timedOut, true
		}
	case err == errUnsubscribed || x.callerGone():
		if x.claim(phaseCancelled) {
			return cancelled, true
		}
	}
	if !x.claim(phaseCompleting) {
		return x.lost(), false
	}
	x.execLatency = end - x.runStart()
	v := x.classified(err)
	x.phase.Store(phaseCompleted)
	return v, true
}

func (run) exit(_ *execution, v verdict) verdict { return v }

// callRun calls the execution-start hooks and the user's run. A failing hook or a panic is
// a run error; a runtime.Goexit is recorded as a failed run on the way down.
func (x *execution) callRun() (err error) {
	if h := x.hook; h != nil {
		ctx := x.runCtx()
		if x.thread != nil {
			if err := x.ks.rt.hookErr(func() error { return h.OnThreadStart(ctx, x.ks.info) }); err != nil {
				return err
			}
		}
		if err := x.ks.rt.hookErr(func() error { return h.OnExecutionStart(ctx, x.ks.info) }); err != nil {
			return err
		}
	}
	returned := false
	defer func() {
		if p := recover(); p != nil {
			err = newPanicError(p)
		} else if !returned {
			x.goexited()
		}
	}()
	err = x.body.call(x)
	returned = true
	return err
}

// goexited records a run that called runtime.Goexit: its goroutine unwinds and never
// returns to the run stage, so the run's claim and FAILURE happen here.
func (x *execution) goexited() {
	x.ks.deadlines.remove(x)
	if x.claim(phaseCompleting) {
		x.execLatency = x.now() - x.runStart()
		x.failedErr = errGoexit
		x.addEvent(metrics.Failure)
		x.phase.Store(phaseCompleted)
	}
}

// runStart returns when the run started: the start of the clock, or for a run on a pool
// goroutine when the goroutine took it (queue wait is not execution latency).
func (x *execution) runStart() time.Duration {
	if x.thread != nil {
		return x.thread.started
	}
	return x.start
}

// classified records the outcome of a run that won the race and calls the execution hooks.
func (x *execution) classified(err error) verdict {
	h := x.hook
	if err == nil {
		x.addEvent(metrics.Success)
		x.body.won()
		if h != nil {
			x.body.emitted(x)
			x.ks.rt.safeHook(func() { h.OnExecutionSuccess(x.runCtx(), x.ks.info) })
		}
		return succeeded
	}
	class, callerErr := x.classify(err)
	switch class {
	case ClassSuccess:
		x.addEvent(metrics.Success)
		x.body.won()
		x.err = callerErr
		if h != nil {
			x.ks.rt.safeHook(func() { h.OnExecutionSuccess(x.runCtx(), x.ks.info) })
		}
		return succeeded
	case ClassBadRequest:
		x.addEvent(metrics.BadRequest)
		x.failedErr, x.err = err, callerErr
		if h != nil {
			x.ks.rt.safeHook(func() { h.OnExecutionError(x.runCtx(), x.ks.info, err) })
		}
		return badRequest
	}
	x.addEvent(metrics.Failure)
	x.failedErr = callerErr // err, or err joined with a classifier's panic
	if h != nil {
		x.ks.rt.safeHook(func() { h.OnExecutionError(x.runCtx(), x.ks.info, err) })
	}
	return failed
}

// classify applies the key's classifier; a classifier that panics makes the error a
// FAILURE whose cause carries the panic (user code must not crash the process).
func (x *execution) classify(err error) (c Class, callerErr error) {
	defer func() {
		if p := recover(); p != nil {
			c, callerErr = ClassFailure, errors.Join(err, newPanicError(p))
		}
	}()
	return classify(x.ks.classify, err)
}
