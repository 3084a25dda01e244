package command

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// timeout is Hystrix's timeout operator. It starts the attempt's clock (so a pool's queue
// wait counts), opens the race between the run, the timer and the caller, and on the way
// out records TIMEOUT when the timer won. With execution.timeout.enabled the attempt gets
// a deadline: a waited one (THREAD: the caller waits for the race's winner, so the timer
// must wake it) joins the key's deadline queue at once, armed from the start's reading;
// otherwise it joins only if run asks for ctx.Done or ctx.Err, and the clock decides when
// run returns (SEMAPHORE: the caller is the run). Every key uses it: without a timeout
// the race still settles run against caller.
type timeout struct{ waited bool }

func (timeout) forKey(k shape) (stage, bool) {
	return timeout{waited: k.iso == config.Thread}, true
}

func (t timeout) enter(_ *execution, a *attempt) (verdict, bool) {
	a.startClock(t.waited)
	return verdict{}, true
}

func (timeout) exit(_ *execution, a *attempt, v verdict) verdict {
	a.stopClock()
	if v.kind == timedOut {
		a.addEvent(metrics.Timeout)
		v.cause = ErrTimeout
	}
	return v
}

// startClock starts the attempt's clock (and the command's, with its first timed attempt)
// and its deadline, and opens its race.
func (a *attempt) startClock(waited bool) {
	x := a.x
	a.start = x.now()
	if !x.timed {
		x.start, x.timed = a.start, true
	}
	p := x.ks.props
	if config.ExecutionTimeoutEnabled.In(p).Get() {
		until := a.timeout // a retry's attempt: the deadline the attempts share
		a.timeout = config.ExecutionTimeout.In(p).Get()
		if until > 0 {
			a.timeout = max(min(a.timeout, until-a.start), 1)
		}
		a.rc.interrupt = config.InterruptOnTimeout.In(p).Get() || x.body.streams()
		a.rc.lazy = !waited
	}
	if waited { // the caller will wait for the race's winner: the timer must be able to wake it
		a.thread = x.newThread(a)
	}
	a.race.open()
	if waited && a.timeout > 0 {
		x.ks.deadlines.add(a, a.start+a.timeout, a.start) // the start is the arming time: no read
	}
}

// stopClock takes the attempt out of the key's deadlines, unless its run goes on on a pool
// goroutine: an abandoned run stays bounded by its deadline.
func (a *attempt) stopClock() {
	if !a.runGoingOn() {
		a.x.ks.deadlines.remove(a)
	}
}

// overdue reports whether the attempt's timeout has passed at now (an offset from the base).
func (a *attempt) overdue(now time.Duration) bool {
	return a.timeout > 0 && now-a.start >= a.timeout
}

// race settles who decides an attempt's outcome: the run's side (run returned, or the
// isolation refused it), the timer (the deadline passed) or the caller (it left). The
// timeout stage opens it; each side claims it with its one intent (runEnded, timerFired,
// callerLeft), and only the winner writes the outcome. When a goroutine waits for the
// winner (await: THREAD isolation) the winner hands it its verdict (settle).
type race struct{ phase atomic.Uint32 }

// Phases of a race.
const (
	raceIdle   uint32 = iota // not open yet
	raceOpen                 // running: the first claim wins
	raceRun                  // the run's side won: it writes the outcome
	raceTimer                // the timer won
	raceCaller               // the caller won
)

// open starts the race.
func (r *race) open() { r.phase.Store(raceOpen) }

// running reports whether the race is open: nobody has claimed it yet.
func (r *race) running() bool { return r.phase.Load() == raceOpen }

// runEnded claims the race for the run's side; the winner records the outcome. (No phase
// marks the outcome written: nobody waits for it by the phase, and a store would be one
// more atomic write per execution.)
func (r *race) runEnded() bool { return r.phase.CompareAndSwap(raceOpen, raceRun) }

// timerFired claims the race for the timer.
func (r *race) timerFired() bool { return r.phase.CompareAndSwap(raceOpen, raceTimer) }

// callerLeft claims the race for the caller.
func (r *race) callerLeft() bool { return r.phase.CompareAndSwap(raceOpen, raceCaller) }

// timedOut reports whether the timer won.
func (r *race) timedOut() bool { return r.phase.Load() == raceTimer }

// lost returns the verdict of the claim that beat the run's side.
func (r *race) lost() verdict {
	if r.timedOut() {
		return verdict{kind: timedOut}
	}
	return verdict{kind: cancelled}
}

// settle hands the timer's verdict to the goroutine waiting for it (THREAD isolation: the
// attempt's thread holds the channel it waits on; the run's side hands its own over in
// thread.Finish).
func (a *attempt) settle(v verdict) {
	if t := a.thread; t != nil {
		t.v = v
		t.won <- struct{}{}
	}
}

// await waits, for a race a goroutine waits on (THREAD isolation), until the winner
// settles it, or until the caller leaves first (its context ends, or the execution is
// given up): then the caller claims the race and the attempt ends CANCELLED.
func (a *attempt) await() verdict {
	x, t := a.x, a.thread
	if x.wait(t.won) {
		return t.v
	}
	if a.race.callerLeft() {
		a.leave()
		return verdict{kind: cancelled}
	}
	<-t.won
	return t.v
}

// leave ends the attempt for a caller that won the race by leaving: the run's context
// ends when the caller's did, or (a cancelled Future) with interruptOnFutureCancel; a run
// that started has its latency until now.
func (a *attempt) leave() {
	x := a.x
	if x.parent.Err() != nil || config.InterruptOnFutureCancel.In(x.ks.props).Get() {
		a.rcCancel(context.Canceled)
	}
	if t := a.thread; t != nil {
		t.mu.Lock()
		if t.state == threadStarted {
			a.execLatency = x.now() - t.started
		}
		t.mu.Unlock()
	}
}

// expire is the timer's side of the race, at the attempt's deadline. The winner writes
// nothing but the phase (runLatency reads the timeout from it: a SEMAPHORE caller learns
// the outcome from the phase alone) and settles a waited race: the caller gets the
// fallback at once. With interruptOnTimeout the run's context ends even if the caller won
// the race first: a cancel never takes the timeout away.
func (a *attempt) expire() {
	a.rc.mu.Lock()
	won := a.expireLocked()
	a.rc.mu.Unlock()
	if won {
		a.settle(verdict{kind: timedOut})
	}
}

// expireLocked claims the race for the timer and interrupts the run; a.rc.mu is held.
func (a *attempt) expireLocked() bool {
	won := a.race.timerFired()
	if a.rc.interrupt && (won || a.race.phase.Load() == raceCaller) {
		a.rcCancelLocked(context.DeadlineExceeded)
	}
	return won
}
