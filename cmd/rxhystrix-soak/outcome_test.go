package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestSettleReadsTheOutcomeFromWhatTheCallerGot(t *testing.T) {
	poolFull := &isolation.RejectedError{Pool: "p", Reason: "full"}
	runErr := func(ft command.FailureType, cause, fallbackErr error) error {
		return fmt.Errorf("wrapped: %w", &command.Error{Type: ft, CommandKey: "K", Cause: cause, FallbackErr: fallbackErr})
	}
	cases := map[string]struct {
		got     tag
		err     error
		want    []metrics.EventType
		onStart bool
	}{
		"run's value":          {err: nil, want: ev(metrics.Success)},
		"business error":       {err: errBusiness, want: ev(metrics.Success)},
		"fallback after pool":  {got: fallbackTag(poolFull), want: ev(metrics.ThreadPoolRejected, metrics.FallbackSuccess)},
		"fallback after timer": {got: fallbackTag(command.ErrTimeout), want: ev(metrics.Timeout, metrics.FallbackSuccess)},
		"fallback after panic": {got: fallbackTag(&command.PanicError{Value: "boom"}), want: ev(metrics.Failure, metrics.FallbackSuccess)},
		"bad request":          {err: errBadRequest, want: ev(metrics.BadRequest)},
		"no fallback": {err: runErr(command.ShortCircuit, command.ErrShortCircuited, command.ErrFallbackMissing),
			want: ev(metrics.ShortCircuited, metrics.FallbackMissing)},
		"fallback rejected": {err: runErr(command.RejectedSemaphoreFallback, command.ErrSemaphoreRejected, command.ErrFallbackRejected),
			want: ev(metrics.SemaphoreRejected, metrics.FallbackRejection)},
		"fallback failed": {err: runErr(command.CommandException, errDependency, errFallback),
			want: ev(metrics.Failure, metrics.FallbackFailure)},
		"onStart panicked": {err: runErr(command.CommandException, &command.PanicError{Value: hookPanic{"OnStart"}}, nil),
			want: ev(metrics.BadRequest), onStart: true},
		"caller left": {err: context.DeadlineExceeded, want: ev(metrics.Cancelled)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var o outcome
			require.NoError(t, o.settle(tc.got, tc.err))
			var want outcome
			for _, e := range tc.want {
				want.add(e, 1)
			}
			want.onStart = tc.onStart
			assert.Equal(t, want, o)
		})
	}
}

func TestSettleRefusesAnswersNoExecutionGives(t *testing.T) {
	for _, err := range []error{
		errors.New("from nowhere"),
		&command.Error{Type: command.BadRequestException, Cause: command.ErrIllegalState},
		&command.Error{Type: command.CommandException, Cause: errDependency}, // a failure with no fallback outcome
	} {
		var o outcome
		assert.Error(t, o.settle(tag{}, err), "%v", err)
	}
}

func TestTallyDerivesExceptionThrown(t *testing.T) {
	var tl tally
	for _, o := range []outcome{outcomeOf(metrics.Failure, metrics.FallbackMissing), outcomeOf(metrics.Success)} {
		tl.record(&o)
	}
	assert.Equal(t, int64(1), tl.count(metrics.ExceptionThrown))
	assert.Equal(t, int64(2), tl.poolExecuted())
}

func ev(es ...metrics.EventType) []metrics.EventType { return es }

func outcomeOf(es ...metrics.EventType) outcome {
	var o outcome
	for _, e := range es {
		o.add(e, 1)
	}
	return o
}
