package command

import (
	"context"
	"time"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// timeout is Hystrix's timeout operator: it starts the execution's clock (so queue wait
// counts) and opens the race that the run, the timer and the caller settle with claim.
// An eager timeout's deadline is always queued (THREAD: the caller must be woken at the
// deadline), by threadPool once the chain is suspended, so that the timer never finds an
// execution it cannot resume; a lazy one only if run asks for ctx.Done, and otherwise the
// clock decides when run returns (SEMAPHORE: the caller is the run). On the way out it
// records TIMEOUT for the verdict the race gave.
type timeout struct{ eager bool }

func (t timeout) enter(x *execution) verdict {
	x.start, x.timed = x.now(), true
	p := x.ks.props
	if p.ExecutionTimeoutEnabled.Get() {
		x.timeout = p.ExecutionTimeout.Get()
		x.rc.interrupt = p.InterruptOnTimeout.Get() || x.body.streams()
		x.rc.lazy = !t.eager
	}
	x.phase.Store(phaseRunning)
	return pending
}

func (timeout) exit(x *execution, v verdict) verdict {
	if !x.runGoingOn() {
		x.ks.deadlines.remove(x)
	}
	if v == timedOut {
		x.execLatency = x.timeout // here, on the goroutine that goes on: not by the timer
		x.addEvent(metrics.Timeout)
		x.failedErr = ErrTimeout
	}
	return v
}

// overdue reports whether the timeout has passed at now (an offset from the base).
func (x *execution) overdue(now time.Duration) bool {
	return x.timeout > 0 && now-x.start >= x.timeout
}

// expire is the timer's side of the race, at x's deadline. The winner resumes a suspended
// chain (THREAD): the caller gets the fallback at once. With interruptOnTimeout the run's
// context ends even if a cancelled Future won the race first: a cancel never takes the
// timeout away.
func (x *execution) expire() {
	x.rc.mu.Lock()
	won := x.expireLocked()
	x.rc.mu.Unlock()
	if won && x.thread != nil {
		x.resumeAway(timedOut)
	}
}

// expireLocked claims the timeout and interrupts the run; x.rc.mu is held.
func (x *execution) expireLocked() bool {
	won := x.claim(phaseTimedOut)
	if x.rc.interrupt && (won || x.phase.Load() == phaseCancelled) {
		x.rcCancelLocked(context.DeadlineExceeded)
	}
	return won
}

// resumeAway resumes the chain from a goroutine that must not run user code for long (the
// deadline queue's timer serves every execution of the key): an asynchronous chain's
// exits, the fallback among them, get a goroutine of their own.
func (x *execution) resumeAway(v verdict) {
	if x.async {
		go x.resume(v)
		return
	}
	x.resume(v)
}
