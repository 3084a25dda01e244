package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// tag is what a run or a fallback answers: a fallback says which failure it recovered
// (it learns it from the error it is called with), so the caller knows the whole
// outcome from what it gets back, without asking the command.
type tag struct {
	fallback bool
	primary  metrics.EventType // for a fallback: FAILURE, TIMEOUT, SHORT_CIRCUITED, ...
}

// fallbackTag is the answer of a fallback called with cause.
func fallbackTag(cause error) tag { return tag{fallback: true, primary: primaryOf(cause)} }

// primaryOf returns the event of the failure a fallback is called for.
func primaryOf(cause error) metrics.EventType {
	switch {
	case errors.Is(cause, command.ErrTimeout):
		return metrics.Timeout
	case errors.Is(cause, command.ErrShortCircuited):
		return metrics.ShortCircuited
	case errors.Is(cause, command.ErrSemaphoreRejected):
		return metrics.SemaphoreRejected
	case errors.Is(cause, command.ErrAdaptiveRejected), errors.Is(cause, adaptive.ErrLimit):
		return metrics.AdaptiveRejected
	case errors.Is(cause, isolation.ErrRejected):
		return metrics.ThreadPoolRejected
	}
	return metrics.Failure
}

// failureEvent returns the event of a runtime error's failure type (the primary failure
// of a command whose fallback did not answer).
func failureEvent(e *command.Error) metrics.EventType {
	switch e.Type {
	case command.Timeout:
		return metrics.Timeout
	case command.ShortCircuit:
		return metrics.ShortCircuited
	case command.RejectedSemaphoreExecution:
		return metrics.SemaphoreRejected
	case command.RejectedAdaptiveExecution:
		return metrics.AdaptiveRejected
	case command.RejectedThreadExecution:
		return metrics.ThreadPoolRejected
	case command.RejectedSemaphoreFallback: // the fallback's rejection: the cause names the failure
		return primaryOf(e.Cause)
	}
	return metrics.Failure
}

// outcome is the events of one execution as its caller saw them.
type outcome struct {
	n         [metrics.NumEventTypes]int64
	onStart   bool // a BAD_REQUEST from a failing onStart hook (it never reaches a pool)
	midStream bool // a stream that delivered an item: its FAILURE is marked MID_STREAM_FAILURE
}

func (o *outcome) add(e metrics.EventType, n int64) {
	if e == metrics.Failure && o.midStream {
		o.n[metrics.StreamMidFailure] += n
	}
	o.n[e] += n
}

// settle adds the terminal part of an outcome: got is what the caller received when err
// is nil or a business error (the run's tag, or the fallback's), err the error it got.
// It returns an error for an answer no execution can give.
func (o *outcome) settle(got tag, err error) error {
	var ce *command.Error
	switch {
	case err == nil || errors.Is(err, errBusiness):
		if got.fallback {
			o.add(got.primary, 1)
			o.add(metrics.FallbackSuccess, 1)
		} else {
			o.add(metrics.Success, 1)
		}
	case err == errBadRequest: // unwrapped, as BadRequest promises
		o.add(metrics.BadRequest, 1)
	case errors.As(err, &ce):
		return o.settleError(ce)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		o.add(metrics.Cancelled, 1)
	default:
		return fmt.Errorf("unexpected error %T: %w", err, err)
	}
	return nil
}

// settleError adds the events of a runtime error.
func (o *outcome) settleError(e *command.Error) error {
	var hp hookPanic
	switch {
	case e.FallbackErr == nil && e.Type == command.CommandException && errors.As(e.Cause, new(*command.PanicError)) &&
		panicValue(e.Cause, &hp) && hp.method == "OnStart":
		o.add(metrics.BadRequest, 1) // onStart failed: fail fast, no fallback
		o.onStart = true
		return nil
	case e.FallbackErr == nil || e.Type == command.BadRequestException:
		return fmt.Errorf("unexpected runtime error: %w", e)
	}
	o.add(failureEvent(e), 1)
	switch {
	case errors.Is(e.FallbackErr, command.ErrFallbackMissing):
		o.add(metrics.FallbackMissing, 1)
	case errors.Is(e.FallbackErr, command.ErrFallbackRejected):
		o.add(metrics.FallbackRejection, 1)
	default:
		o.add(metrics.FallbackFailure, 1)
	}
	return nil
}

// panicValue reports whether err holds a *command.PanicError whose value is a hookPanic,
// and sets *hp to it.
func panicValue(err error, hp *hookPanic) bool {
	var pe *command.PanicError
	if !errors.As(err, &pe) {
		return false
	}
	v, ok := pe.Value.(hookPanic)
	*hp = v
	return ok
}

// tally counts, per command key, the events its executions recorded as their callers saw
// them; the soak compares it with the library's cumulative counts at the end.
type tally struct {
	n       [metrics.NumEventTypes]atomic.Int64
	onStart atomic.Int64 // BAD_REQUESTs from a failing onStart hook
}

// record adds one execution's outcome; EXCEPTION_THROWN is derived as metrics derive it.
func (t *tally) record(o *outcome) {
	for e, n := range o.n {
		if n != 0 {
			t.n[e].Add(n)
			if metrics.EventType(e).IsExceptionProducing() {
				t.n[metrics.ExceptionThrown].Add(1)
			}
		}
	}
	if o.onStart {
		t.onStart.Add(1)
	}
}

// count returns the events of type e recorded so far.
func (t *tally) count(e metrics.EventType) int64 { return t.n[e].Load() }

// poolExecuted returns the executions that count as EXECUTED for a thread pool: every
// run that got as far as the pool (SUCCESS, FAILURE, TIMEOUT, BAD_REQUEST from run).
func (t *tally) poolExecuted() int64 {
	return t.count(metrics.Success) + t.count(metrics.Failure) + t.count(metrics.Timeout) +
		t.count(metrics.BadRequest) - t.onStart.Load()
}
