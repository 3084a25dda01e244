package command

import (
	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// verdict is what happened to an execution, or to one attempt of it, as the stages hand it
// outward: its kind, its cause and, for a refusal, which one. A stage returns its verdict;
// the few facts kept in the execution's fields (why the primary path failed, failedErr;
// the attempt whose outcome the command reports, last; the caller's error, err) are
// written by the stage each field names and read by the accessors and the terminal.
type verdict struct {
	kind kind
	// cause is why: for a primary verdict the error behind it (the run's error,
	// ErrTimeout, ErrShortCircuited, the pool's rejection); for a final one (see kind)
	// the error the caller gets, nil for a value without error.
	cause error
	// refusal says which stage refused the attempt (kind refused).
	refusal *refusal
}

// kind is the kind of a verdict. The zero kind is aborted: a stage that reads the verdict
// of the stages inside it in a deferred call sees aborted when the goroutine unwound
// instead of returning (runtime.Goexit in user code).
//
// The primary kinds come from the stages that decide an attempt (a refusing stage, the
// timeout's race, run); the fallback stage turns them into the final kinds the caller
// sees: succeeded, fellBack, errored or cancelled.
type kind uint8

const (
	aborted    kind = iota // the goroutine unwound through the chain (runtime.Goexit)
	succeeded              // SUCCESS: the caller gets the run's value (and cause, a business error)
	failed                 // FAILURE: run returned an error that counts against health
	badRequest             // BAD_REQUEST: no fallback, the caller gets the error
	refused                // a stage refused the attempt before run (verdict.refusal says which)
	timedOut               // TIMEOUT: the timer won the race against the run
	cancelled              // the caller went away before the outcome
	fellBack               // final: the fallback answered, the caller gets its value
	errored                // final: the caller gets cause

	// A stream's failure by phase (stream.go, body.failure).
	notEstablished // ESTABLISH_TIMEOUT: a stream's limit passed before its first item
	cut            // FAILURE (and MID_STREAM_FAILURE): a stream failed after its first item
	cutUncounted   // MID_STREAM_FAILURE alone: a cut that does not count for health
	numKinds
)

// kindInfo is what a kind means.
type kindInfo struct {
	name string
	// event is the event of a primary kind but refused (whose event is its refusal's):
	// what decides what the breaker is told, through its metrics.Health.
	event metrics.EventType
	// fallback is the failure type of a kind the fallback stage recovers (refused: its
	// refusal's); 0 for the others.
	fallback FailureType
}

// kinds is the one table of verdict kinds.
var kinds = [numKinds]kindInfo{
	aborted:    {name: "aborted", event: metrics.Failure}, // the FAILURE the unwinding run records
	succeeded:  {name: "succeeded", event: metrics.Success},
	failed:     {name: "failed", event: metrics.Failure, fallback: CommandException},
	badRequest: {name: "badRequest", event: metrics.BadRequest},
	refused:    {name: "refused"},
	timedOut:   {name: "timedOut", event: metrics.Timeout, fallback: Timeout},
	cancelled:  {name: "cancelled", event: metrics.Cancelled},
	fellBack:   {name: "fellBack", event: metrics.FallbackSuccess},
	errored:    {name: "errored", event: metrics.ExceptionThrown},

	notEstablished: {name: "notEstablished", event: metrics.StreamEstablishTimeout, fallback: Timeout},
	cut:            {name: "cut", event: metrics.Failure, fallback: CommandException},
	cutUncounted:   {name: "cutUncounted", event: metrics.StreamMidFailure, fallback: CommandException},
}

func (k kind) String() string { return kinds[k].name }

// gaveValue reports whether the caller gets a value (from the run or the fallback).
func (k kind) gaveValue() bool { return k == succeeded || k == fellBack }

// refusal is how a stage refuses an attempt before its run: the event it records and the
// failure type of the runtime error when no fallback recovers it. Each refusing stage
// declares its own (shortCircuit, semaphoreFull, poolFull).
type refusal struct {
	event   metrics.EventType
	failure FailureType
}

// event returns the event v records: its refusal's, or its kind's.
func (v verdict) event() metrics.EventType {
	if v.refusal != nil {
		return v.refusal.event
	}
	return kinds[v.kind].event
}

// fallbackType returns the failure type of a verdict the fallback stage recovers, 0 for
// the others.
func (v verdict) fallbackType() FailureType {
	if v.refusal != nil {
		return v.refusal.failure
	}
	return kinds[v.kind].fallback
}

// breakerOutcome is what the breaker is told of a primary verdict, read from the health
// of its event: a healthy event is a Success, an unhealthy one a Failure (an aborted run
// counts as the FAILURE it records), and an event that says nothing about the dependency
// releases a trial without a verdict, except a caller that left: its trial reopens.
func (v verdict) breakerOutcome() breaker.Outcome {
	if v.kind == cancelled {
		return breaker.Cancelled
	}
	switch v.event().Health() {
	case metrics.Healthy:
		return breaker.Success
	case metrics.Unhealthy:
		return breaker.Failure
	}
	return breaker.BadRequest
}
