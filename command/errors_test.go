package command

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/config"
)

func TestFailureTypeNames(t *testing.T) {
	want := map[FailureType]string{
		BadRequestException: "BAD_REQUEST_EXCEPTION", CommandException: "COMMAND_EXCEPTION",
		Timeout: "TIMEOUT", ShortCircuit: "SHORTCIRCUIT", RejectedThreadExecution: "REJECTED_THREAD_EXECUTION",
		RejectedSemaphoreExecution: "REJECTED_SEMAPHORE_EXECUTION",
		RejectedSemaphoreFallback:  "REJECTED_SEMAPHORE_FALLBACK", FailureType(99): "FailureType(99)",
	}
	for ft, name := range want {
		assert.Equal(t, name, ft.String())
	}
}

func TestErrorMatchesOnlyItsSentinel(t *testing.T) {
	sentinels := map[FailureType]error{
		BadRequestException: ErrBadRequest, CommandException: ErrCommandFailed, Timeout: ErrTimeout,
		ShortCircuit: ErrShortCircuited, RejectedThreadExecution: ErrThreadPoolFull,
		RejectedSemaphoreExecution: ErrSemaphoreRejected, RejectedSemaphoreFallback: ErrFallbackRejected,
	}
	for ft := range sentinels {
		err := fmt.Errorf("wrapped: %w", &Error{Type: ft, CommandKey: "K", Cause: errBoom})
		for other, s := range sentinels {
			assert.Equal(t, ft == other, errors.Is(err, s), "%s vs %s", ft, other)
		}
		assert.ErrorIs(t, err, errBoom)
		var re *Error
		assert.ErrorAs(t, err, &re)
		assert.Equal(t, ft == Timeout, errors.Is(err, context.DeadlineExceeded),
			"%s: only a TIMEOUT is a deadline exceeded, as net/http's client timeout is", ft)
		assert.Equal(t, ft == Timeout, os.IsTimeout(re), "%s", ft)
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Type: CommandException, CommandKey: "K", Cause: errBoom, FallbackErr: ErrFallbackMissing},
			"K failed and no fallback available (cause: boom)"},
		{&Error{Type: Timeout, CommandKey: "K", Cause: ErrTimeout, FallbackErr: errors.New("nope")},
			"K timed-out and fallback failed: nope"},
		{&Error{Type: ShortCircuit, CommandKey: "K", Cause: ErrShortCircuited, FallbackErr: ErrFallbackDisabled},
			"K short-circuited and fallback disabled"},
		{&Error{Type: RejectedSemaphoreFallback, CommandKey: "K", Cause: ErrSemaphoreRejected, FallbackErr: ErrFallbackRejected},
			"K could not acquire a semaphore for execution and fallback execution rejected"},
		{&Error{Type: BadRequestException, CommandKey: "K", Cause: ErrIllegalState},
			"K bad request (cause: " + ErrIllegalState.Error() + ")"},
		{&Error{Type: BadRequestException, Cause: config.ErrEmptyKey},
			"command: bad request (cause: config: empty key)"},
		{&Error{Type: CommandException, CommandKey: "K", Cause: ErrTimeout, FallbackErr: ErrFallbackMissing},
			"K failed and no fallback available (cause: command: execution timed out)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestBadRequestAndPanicErrors(t *testing.T) {
	err := BadRequest(errBoom)
	assert.Equal(t, "boom", err.Error())
	assert.ErrorIs(t, err, errBoom)
	assert.Equal(t, "command: bad request", (&badRequestError{}).Error())

	class, callerErr := classify(nil, fmt.Errorf("ctx: %w", err))
	assert.Equal(t, ClassBadRequest, class)
	assert.Same(t, errBoom, callerErr)
	assert.Equal(t, "BAD_REQUEST", class.String())
	assert.Equal(t, "FAILURE", ClassFailure.String())
	assert.Equal(t, "SUCCESS", ClassSuccess.String())

	pe := newPanicError(errBoom)
	assert.ErrorIs(t, pe, errBoom)
	assert.Equal(t, "command: panic: boom", pe.Error())
	assert.NotEmpty(t, pe.Stack)
	assert.NoError(t, newPanicError(42).Unwrap())
}
