package command

import (
	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// verdict is what happened to an execution, or to one attempt of it, as the stages hand it
// outward: its kind and its cause. A stage returns its verdict; nothing about an outcome is
// left in a field for another stage to find.
type verdict struct {
	kind kind
	// cause is why: for a primary verdict the error behind it (the run's error,
	// ErrTimeout, ErrShortCircuited, the pool's rejection); for a final one (see kind)
	// the error the caller gets, nil for a value without error.
	cause error
}

// kind is the kind of a verdict. The zero kind is aborted: a stage that reads the verdict
// of the stages inside it in a deferred call sees aborted when the goroutine unwound
// instead of returning (runtime.Goexit in user code).
//
// The primary kinds come from the stages that decide an attempt (breakerGate, semaphore,
// threadPool, the timeout's race, run); the fallback stage turns them into the final
// kinds the caller sees: succeeded, fellBack, errored or cancelled.
type kind uint8

const (
	aborted        kind = iota // the goroutine unwound through the chain (runtime.Goexit)
	succeeded                  // SUCCESS: the caller gets the run's value (and cause, a business error)
	failed                     // FAILURE: run returned an error that counts against health
	badRequest                 // BAD_REQUEST: no fallback, the caller gets the error
	shortCircuited             // SHORT_CIRCUITED: the breaker refused
	semRejected                // SEMAPHORE_REJECTED: the execution semaphore was full
	poolRejected               // THREAD_POOL_REJECTED: the pool refused the run
	timedOut                   // TIMEOUT: the timer won the race against the run
	cancelled                  // the caller went away before the outcome
	fellBack                   // final: the fallback answered, the caller gets its value
	errored                    // final: the caller gets cause
	numKinds
)

// kindInfo is what a kind means.
type kindInfo struct {
	name string
	// event is the event of a primary kind: it decides what the breaker is told (through
	// its metrics.Health). The stage that decides records it (attempt.decide).
	event metrics.EventType
	// fallback is the failure type of a kind the fallback stage recovers; 0 for the others.
	fallback FailureType
}

// kinds is the one table of verdict kinds.
var kinds = [numKinds]kindInfo{
	aborted:        {name: "aborted", event: metrics.Failure},
	succeeded:      {name: "succeeded", event: metrics.Success},
	failed:         {name: "failed", event: metrics.Failure, fallback: CommandException},
	badRequest:     {name: "badRequest", event: metrics.BadRequest},
	shortCircuited: {name: "shortCircuited", event: metrics.ShortCircuited, fallback: ShortCircuit},
	semRejected:    {name: "semRejected", event: metrics.SemaphoreRejected, fallback: RejectedSemaphoreExecution},
	poolRejected:   {name: "poolRejected", event: metrics.ThreadPoolRejected, fallback: RejectedThreadExecution},
	timedOut:       {name: "timedOut", event: metrics.Timeout, fallback: Timeout},
	cancelled:      {name: "cancelled", event: metrics.Cancelled},
	fellBack:       {name: "fellBack", event: metrics.FallbackSuccess},
	errored:        {name: "errored", event: metrics.ExceptionThrown},
}

func (k kind) String() string { return kinds[k].name }

// gaveValue reports whether the caller gets a value (from the run or the fallback).
func (k kind) gaveValue() bool { return k == succeeded || k == fellBack }

// breakerOutcome is what the breaker is told of a primary verdict, read from the health
// of its event: a healthy event is a Success, an unhealthy one a Failure (an aborted run
// counts as the FAILURE it records), and an event that says nothing about the dependency
// releases a trial without a verdict, except a caller that left: its trial reopens.
func breakerOutcome(k kind) breaker.Outcome {
	if k == cancelled {
		return breaker.Cancelled
	}
	switch kinds[k].event.Health() {
	case metrics.Healthy:
		return breaker.Success
	case metrics.Unhealthy:
		return breaker.Failure
	}
	return breaker.BadRequest
}
