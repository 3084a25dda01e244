package command

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
)

// FailureType says why a command failed, with the names of Hystrix's
// HystrixRuntimeException.FailureType.
type FailureType uint8

const (
	// BadRequestException: the command was used wrongly (executed twice, a cache key
	// without a request context, invalid properties).
	BadRequestException FailureType = iota + 1
	// CommandException: the run failed and the fallback did not recover it.
	CommandException
	// Timeout: the run did not complete within the execution timeout.
	Timeout
	// ShortCircuit: the circuit breaker refused the execution.
	ShortCircuit
	// RejectedThreadExecution: the thread pool (goroutine pool) refused the run.
	RejectedThreadExecution
	// RejectedSemaphoreExecution: the execution semaphore was full.
	RejectedSemaphoreExecution
	// RejectedSemaphoreFallback: the fallback semaphore was full.
	RejectedSemaphoreFallback
	// RejectedAdaptiveExecution: the adaptive concurrency limit refused the execution
	// (ADAPTIVE isolation, beyond Hystrix); the cause says why (adaptive.ErrLimit,
	// ErrQueueFull, ErrCriticality).
	RejectedAdaptiveExecution
	// RateLimited: the key's rate limiter had no permit for the execution (beyond
	// Hystrix; the cause is a *RateLimitError).
	RateLimited
	// Throttled: the key's adaptive throttle refused the execution locally (beyond
	// Hystrix; graded throttling, the throttle.* properties).
	Throttled
)

// String returns the Hystrix name, e.g. "REJECTED_SEMAPHORE_EXECUTION".
func (t FailureType) String() string {
	switch t {
	case BadRequestException:
		return "BAD_REQUEST_EXCEPTION"
	case CommandException:
		return "COMMAND_EXCEPTION"
	case Timeout:
		return "TIMEOUT"
	case ShortCircuit:
		return "SHORTCIRCUIT"
	case RejectedThreadExecution:
		return "REJECTED_THREAD_EXECUTION"
	case RejectedSemaphoreExecution:
		return "REJECTED_SEMAPHORE_EXECUTION"
	case RejectedSemaphoreFallback:
		return "REJECTED_SEMAPHORE_FALLBACK"
	case RejectedAdaptiveExecution:
		return "REJECTED_ADAPTIVE_EXECUTION"
	case RateLimited:
		return "RATE_LIMITED"
	case Throttled:
		return "THROTTLED"
	}
	return "FailureType(" + strconv.Itoa(int(t)) + ")"
}

// sentinel is the error type of the per-failure-type sentinels. errors.Is(err, s) holds
// for every *Error of s's failure type.
type sentinel struct {
	t   FailureType
	msg string
}

func (s *sentinel) Error() string { return s.msg }

// Sentinel errors, one per failure type. errors.Is(err, ErrX) reports whether err is (or
// wraps) a runtime *Error of that failure type. ErrTimeout, ErrShortCircuited and
// ErrSemaphoreRejected are also the causes Hystrix gives those failures.
var (
	ErrBadRequest        error = &sentinel{BadRequestException, "command: bad request"}
	ErrCommandFailed     error = &sentinel{CommandException, "command: execution failed"}
	ErrTimeout           error = &sentinel{Timeout, "command: execution timed out"}
	ErrShortCircuited    error = &sentinel{ShortCircuit, "command: short-circuited and is OPEN"}
	ErrThreadPoolFull    error = &sentinel{RejectedThreadExecution, "command: could not be queued for execution"}
	ErrSemaphoreRejected error = &sentinel{RejectedSemaphoreExecution, "command: could not acquire a semaphore for execution"}
	ErrFallbackRejected  error = &sentinel{RejectedSemaphoreFallback, "command: could not acquire a semaphore for fallback execution"}
	ErrAdaptiveRejected  error = &sentinel{RejectedAdaptiveExecution, "command: could not acquire an adaptive permit for execution"}
	ErrRateLimited       error = &sentinel{RateLimited, "command: rate limited"}
	ErrThrottled         error = &sentinel{Throttled, "command: throttled"}
)

// Causes of failures that do not come from user code.
var (
	// ErrIllegalState is the cause of the BAD_REQUEST_EXCEPTION of a second execution of
	// the same instance: commands are single use, as in Hystrix.
	ErrIllegalState = errors.New("command: this instance can only be executed once; create a new instance")
	// ErrNoRequestContext is the cause of the BAD_REQUEST_EXCEPTION of a command with a
	// cache key executed without a request context (see package cache).
	ErrNoRequestContext = errors.New("command: a cache key needs a request context (cache.NewRequestContext)")
	// ErrFallbackMissing is the fallback error of a failed command that has no fallback.
	ErrFallbackMissing = errors.New("command: no fallback available")
	// ErrFallbackDisabled is the fallback error of a failed command whose fallback is
	// disabled (fallback.enabled=false).
	ErrFallbackDisabled = errors.New("command: fallback disabled")
)

// Error is the runtime error of a command (Hystrix's HystrixRuntimeException): the
// failure type, the command key, the cause (Unwrap) and, when a fallback was tried or
// missing, the fallback error. errors.Is(err, ErrTimeout) and the other sentinels match on
// the failure type; errors.Is also sees through to the cause.
type Error struct {
	Type        FailureType // why the command failed
	CommandKey  string      // the command key ("" for a Setter without one)
	Cause       error       // what failed: run's error, a sentinel such as ErrTimeout, ...
	FallbackErr error       // nil, or why no fallback answered (ErrFallbackMissing, ...)
}

// Error returns a Hystrix-style message, "<key> <what happened>[ and <fallback
// outcome>][ (cause: <cause>)]", e.g. "GetUser timed-out and no fallback available". The
// cause is left out when it is the sentinel of what happened, which the message names
// already; without a key the message starts with "command:".
func (e *Error) Error() string {
	msg := e.CommandKey + " " + e.what()
	if e.CommandKey == "" {
		msg = "command: " + e.what()
	}
	switch {
	case e.FallbackErr == nil:
	case errors.Is(e.FallbackErr, ErrFallbackMissing):
		msg += " and no fallback available"
	case errors.Is(e.FallbackErr, ErrFallbackDisabled):
		msg += " and fallback disabled"
	case errors.Is(e.FallbackErr, ErrFallbackRejected):
		msg += " and fallback execution rejected"
	default:
		msg += " and fallback failed: " + e.FallbackErr.Error()
	}
	if e.Cause != nil && !e.causeIsNamed() {
		msg += " (cause: " + e.Cause.Error() + ")"
	}
	return msg
}

// causeIsNamed reports whether the cause is a sentinel the message names already: the
// sentinel of e's own type, or the failure a rejected fallback followed.
func (e *Error) causeIsNamed() bool {
	s, ok := e.Cause.(*sentinel)
	return ok && (s.t == e.Type || e.Type == RejectedSemaphoreFallback)
}

func (e *Error) what() string {
	switch e.Type {
	case BadRequestException:
		return "bad request"
	case Timeout:
		return "timed-out"
	case ShortCircuit:
		return "short-circuited"
	case RejectedThreadExecution:
		return "could not be queued for execution"
	case RejectedSemaphoreExecution:
		return "could not acquire a semaphore for execution"
	case RejectedAdaptiveExecution:
		return "could not acquire an adaptive permit for execution"
	case RateLimited:
		return "was rate limited"
	case Throttled:
		return "was throttled"
	case RejectedSemaphoreFallback:
		// The fallback was rejected after some other failure: name that one.
		var s *sentinel
		if errors.As(e.Cause, &s) && s.t != RejectedSemaphoreFallback {
			return (&Error{Type: s.t}).what()
		}
	}
	return "failed"
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is the sentinel of e's failure type; a TIMEOUT is also
// context.DeadlineExceeded, as net/http's Client.Timeout error is (a caller's own deadline
// gives the bare context error instead, never an *Error).
func (e *Error) Is(target error) bool {
	if target == context.DeadlineExceeded {
		return e.Type == Timeout
	}
	s, ok := target.(*sentinel)
	return ok && s.t == e.Type
}

// Timeout reports whether e is a TIMEOUT (the method net.Error and os.IsTimeout look for).
func (e *Error) Timeout() bool { return e.Type == Timeout }

// BadRequest wraps err as a bad request (Hystrix's HystrixBadRequestException); return
// it from a run function. The command records BAD_REQUEST, runs no fallback, leaves
// health counts and the circuit breaker alone, and returns err to the caller unwrapped.
func BadRequest(err error) error { return &badRequestError{err: err} }

// badRequestError is the error BadRequest makes.
type badRequestError struct {
	err error // the caller's mistake, returned to the caller as it is
}

func (e *badRequestError) Error() string {
	if e.err == nil {
		return "command: bad request"
	}
	return e.err.Error()
}

func (e *badRequestError) Unwrap() error { return e.err }

// PanicError is the error a panic in a run, fallback or hook function becomes (a FAILURE
// or FALLBACK_FAILURE, never a crash). It keeps the panic value and the stack.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack (runtime/debug.Stack)
}

// Error returns the panic value.
func (e *PanicError) Error() string { return fmt.Sprintf("command: panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// newPanicError captures the current goroutine's stack; call it from a deferred recover.
func newPanicError(v any) *PanicError { return &PanicError{Value: v, Stack: debug.Stack()} }
