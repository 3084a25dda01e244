package command

import (
	"context"
	"errors"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// errUnsubscribed is what a stream's run or fallback returns when its subscriber went
// away (a send failed, or a range loop broke).
var errUnsubscribed = errors.New("command: subscriber left")

// errGoexit is the run error of a run that called runtime.Goexit (t.Fatal in a test).
var errGoexit = errors.New("command: run called runtime.Goexit")

// run is the innermost stage: the execution-start hooks, the user's run (or construct and
// its stream), then the run side's claim of the timeout's race and the classification of
// its error. It never calls next. Under THREAD isolation it runs on a pool goroutine.
type run struct{}

func (run) enter(_ *execution, a *attempt) (verdict, bool) { return a.runOnce(), false }

func (run) exit(_ *execution, _ *attempt, v verdict) verdict { return v }

// runOnce calls run and claims the race for the run's side (the clock decides a deadline
// no timer watched): the outcome is the run's, or a cancel if the caller left while it
// ran. A claim lost gives the winner's verdict.
func (a *attempt) runOnce() verdict {
	x := a.x
	if a.thread == nil {
		a.executed = true
		if !a.permit {
			x.ks.metrics.MarkStart()
		}
	}
	err := a.callRun()
	end := x.now()
	a.end = end
	x.ks.deadlines.remove(a)
	if a.thread == nil && a.overdue(end) && a.race.timerFired() {
		return verdict{kind: timedOut} // no timer was armed: the clock decides
	}
	if !a.race.runEnded() {
		return a.race.lost()
	}
	a.execLatency = end - a.runStart()
	v := verdict{kind: cancelled} // the caller left while run ran
	if err != errUnsubscribed && !x.callerGone(err) && !(a.hedged && a.withdrawn(err)) {
		v = a.classified(err)
	}
	return v
}

// callRun calls the execution-start hooks and the user's run (or, for an attempt the fault
// injection stage picked, its fault). A failing hook or a panic is a run error; a
// runtime.Goexit is recorded as a failed run on the way down.
func (a *attempt) callRun() (err error) {
	if a.hedged && a.withdrawn(context.Canceled) {
		return context.Canceled // another attempt won before this one reached its run: never called
	}
	if a.x.hook != nil {
		if err := a.startHooks(); err != nil {
			return err
		}
	}
	returned := false
	defer func() {
		if !returned {
			err = a.unwound(recover())
		}
	}()
	if a.fault != 0 {
		err = a.injectFault()
	} else {
		err = a.x.body.call(a)
	}
	returned = true
	return err
}

// startHooks calls onThreadStart (on a pool goroutine) and onExecutionStart; a failing or
// panicking hook is the run's error.
func (a *attempt) startHooks() error {
	x, h, ctx := a.x, a.x.hook, a.ctx()
	if a.thread != nil {
		if err := x.ks.rt.hookErr(func() error { return h.OnThreadStart(ctx, x.ks.info) }); err != nil {
			return err
		}
	}
	return x.ks.rt.hookErr(func() error { return h.OnExecutionStart(ctx, x.ks.info) })
}

// unwound is the run's error when the user's run did not return: its panic p, or, when p
// is nil, a runtime.Goexit (recorded as a failed run on the way down).
func (a *attempt) unwound(p any) error {
	if p != nil {
		return newPanicError(p)
	}
	a.goexited()
	return nil
}

// goexited records a run that called runtime.Goexit: its goroutine unwinds and never
// returns to runOnce, so the run side's claim and FAILURE happen here.
func (a *attempt) goexited() {
	a.x.ks.deadlines.remove(a)
	if a.race.runEnded() {
		a.execLatency = a.x.now() - a.runStart()
		a.addEvent(metrics.Failure)
	}
}

// classified records the outcome of a run whose side won the race and calls the
// execution hooks. A bad request's verdict carries the run's error as is (the fallback
// stage gives the caller the error it wraps).
func (a *attempt) classified(err error) verdict {
	x := a.x
	class, callerErr := ClassSuccess, error(nil)
	if err != nil {
		class, callerErr = a.classify(err)
	}
	var v verdict
	switch class {
	case ClassSuccess:
		v = a.decide(succeeded, callerErr) // a business error comes with the value
		if !a.hedged {
			x.body.won(a)
		}
	case ClassBadRequest:
		v = a.decide(badRequest, err)
	default:
		v = a.decide(x.body.failure(a, err), callerErr) // err, or err joined with a classifier's panic
	}
	h := x.hook
	switch {
	case h == nil:
	case class != ClassSuccess:
		x.ks.rt.safeHook(func() { h.OnExecutionError(a.ctx(), x.ks.info, err) })
	default:
		if err == nil && !a.hedged {
			x.body.emitted(a)
		}
		x.ks.rt.safeHook(func() { h.OnExecutionSuccess(a.ctx(), x.ks.info) })
	}
	return v
}

// classify applies the key's classifier; a classifier that panics makes the error a
// FAILURE whose cause carries the panic (user code must not crash the process).
func (a *attempt) classify(err error) (c Class, callerErr error) {
	defer func() {
		if p := recover(); p != nil {
			c, callerErr = ClassFailure, errors.Join(err, newPanicError(p))
		}
	}()
	return classify(a.x.ks.classify, err)
}
