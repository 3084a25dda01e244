package command

import (
	"context"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// attempt is one try of the stages inside the execution-level ones (see DESIGN.md): its
// clock, the timeout's race, its run context, its events and its latency. An execution's
// first attempt is part of it; a stage that runs the rest of the chain again (a retry, a
// hedge) makes another with execution.newAttempt.
type attempt struct {
	x *execution

	// Written by the timeout stage before the race opens; read-only afterwards.
	start time.Duration // when the attempt's clock started, as an offset from the runtime's base
	// timeout is 0 for no timeout; the deadline is start+timeout. Before the clock starts,
	// a retry may set it to the deadline its attempts share (an offset from the base), which
	// startClock turns into what is left of it (the field does both: the Command stays
	// within its allocation size class).
	timeout time.Duration

	race race // who decides the attempt: see race

	// Written by the run's side of the race: executed as run starts (under thread.mu for
	// a pool goroutine), the rest only by the side that won (the caller's side writes
	// execLatency when it won by leaving).
	executed    bool          // run started: metrics' MarkStart was called (unless permit)
	fault       uint8         // the fault run gives instead (config.Fault+1), 0: none; set by faultInjection before run starts
	hedged      bool          // set before it starts: the hedge stage, not the run, publishes its value
	permit      bool          // the execution semaphore counted the attempt in flight: no MarkStart
	end         time.Duration // when run returned
	execLatency time.Duration // how long run took (runLatency)

	// Written on the goroutine that decides the attempt (the driving one, or the pool
	// goroutine whose run won), read once the race is over.
	events uint32         // this attempt's events (addEvent)
	ticket breaker.Ticket // what the breaker let the attempt through with (breakerGate)
	out    any            // where the body keeps this attempt's result; nil: the body's own
	thread *thread        // THREAD isolation: the pool goroutine's state (threadPool)

	rc runState // the run context (runctx.go)
}

// newAttempt makes the next attempt of x, whose outcome the command reports from now on.
// Call it on the goroutine that drives the chain, before the attempt's run can start.
func (x *execution) newAttempt() *attempt {
	a := &attempt{x: x}
	x.last = a
	return a
}

// addEvent records an event of the attempt, which is also one of the execution, and tells
// the event notifier.
func (a *attempt) addEvent(e metrics.EventType) {
	a.events |= 1 << e
	x := a.x
	x.events.Or(1 << e)
	if x.notifies {
		x.notify(e)
	}
}

// decide records the event of a primary verdict of kind k (kinds) and returns the
// verdict.
func (a *attempt) decide(k kind, cause error) verdict {
	a.addEvent(kinds[k].event)
	return verdict{kind: k, cause: cause}
}

// refuse records r's event and returns the verdict of a stage that refused the attempt
// for cause.
func (a *attempt) refuse(r *refusal, cause error) verdict {
	a.addEvent(r.event)
	return verdict{kind: refused, cause: cause, refusal: r}
}

// runStart returns when the run started: the start of the clock, or for a run on a pool
// goroutine when the goroutine took it (queue wait is not execution latency).
func (a *attempt) runStart() time.Duration {
	if a.thread != nil {
		return a.thread.started
	}
	return a.start
}

// runLatency returns how long run took, until the caller left if it did, or the timeout
// if the timer won the race: the timer's goroutine writes nothing but the phase, which
// every reader of the outcome reads.
func (a *attempt) runLatency() time.Duration {
	if a.race.timedOut() {
		return a.timeout
	}
	return a.execLatency
}

// ran reports whether run started (on a pool goroutine, as seen under its lock).
func (a *attempt) ran() bool {
	if a.thread == nil {
		return a.executed
	}
	return a.thread.ran(a)
}

// ctx returns the attempt's run context.
func (a *attempt) ctx() context.Context { return (*runCtx)(a) }
