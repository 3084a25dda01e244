package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestStreamErrorPaths drives a Stream through every way its chain can end other than
// success: each checks the values and error the subscriber gets, the events, and what the
// breaker's health saw.
func TestStreamErrorPaths(t *testing.T) {
	errNotFound, errFallback := errors.New("not found"), errors.New("fallback broke")
	classify := func(err error) Class {
		if errors.Is(err, errNotFound) {
			return ClassSuccess
		}
		return DefaultClassifier(err)
	}
	fallback := func(context.Context, error) rxgo.Observable { return rxgo.Just("fb")() }
	tests := []struct {
		name      string
		props     config.Overrides
		construct func(context.Context) rxgo.Observable
		fallback  func(context.Context, error) rxgo.Observable
		values    []any
		check     func(t *testing.T, err error) // the subscriber's error; nil: none
		events    []metrics.EventType
		health    metrics.HealthCounts
	}{
		{name: "semaphore rejection falls back",
			props:     config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "0"},
			construct: emitting("never"), fallback: fallback, values: []any{"fb"},
			events: ev(metrics.SemaphoreRejected, metrics.FallbackEmit, metrics.FallbackSuccess),
			health: metrics.HealthCounts{TotalRequests: 1, ErrorCount: 1, ErrorPercentage: 100}},
		{name: "semaphore rejection without fallback",
			props:     config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "0"},
			construct: emitting("never"),
			check: func(t *testing.T, err error) {
				runtimeErr(t, err, RejectedSemaphoreExecution)
				assert.ErrorIs(t, err, ErrSemaphoreRejected)
			},
			events: ev(metrics.SemaphoreRejected, metrics.FallbackMissing),
			health: metrics.HealthCounts{TotalRequests: 1, ErrorCount: 1, ErrorPercentage: 100}},
		{name: "a business error classified as success",
			construct: func(context.Context) rxgo.Observable { return rxgo.Just(1, errNotFound)() },
			fallback:  fallback, values: []any{1},
			check:  func(t *testing.T, err error) { assert.Same(t, errNotFound, err, "the error as is, no fallback") },
			events: ev(metrics.Emit, metrics.Success),
			health: metrics.HealthCounts{TotalRequests: 1}},
		{name: "a bad request",
			construct: func(context.Context) rxgo.Observable { return rxgo.Just(1, BadRequest(errBoom))() },
			fallback:  fallback, values: []any{1},
			check:  func(t *testing.T, err error) { assert.Same(t, errBoom, err, "the cause as is, no fallback") },
			events: ev(metrics.Emit, metrics.BadRequest),
			health: metrics.HealthCounts{}},
		{name: "a failing fallback stream",
			construct: func(context.Context) rxgo.Observable { return rxgo.Just(errBoom)() },
			fallback: func(context.Context, error) rxgo.Observable {
				return rxgo.Just("partial", errFallback)()
			},
			values: []any{"partial"},
			check: func(t *testing.T, err error) {
				re := runtimeErr(t, err, CommandException)
				assert.Same(t, errBoom, re.Cause)
				assert.Same(t, errFallback, re.FallbackErr)
			},
			events: ev(metrics.Failure, metrics.FallbackEmit, metrics.FallbackFailure),
			health: metrics.HealthCounts{TotalRequests: 1, ErrorCount: 1, ErrorPercentage: 100}},
		{name: "a panicking construct is a failure",
			construct: func(context.Context) rxgo.Observable { panic("construct exploded") },
			fallback:  fallback, values: []any{"fb"},
			events: ev(metrics.Failure, metrics.FallbackEmit, metrics.FallbackSuccess),
			health: metrics.HealthCounts{TotalRequests: 1, ErrorCount: 1, ErrorPercentage: 100}},
		{name: "a panicking construct without fallback",
			construct: func(context.Context) rxgo.Observable { panic("construct exploded") },
			check: func(t *testing.T, err error) {
				re := runtimeErr(t, err, CommandException)
				var pe *PanicError
				require.ErrorAs(t, re.Cause, &pe)
				assert.Equal(t, "construct exploded", pe.Value)
			},
			events: ev(metrics.Failure, metrics.FallbackMissing),
			health: metrics.HealthCounts{TotalRequests: 1, ErrorCount: 1, ErrorPercentage: 100}},
		{name: "a nil observable is a failure",
			construct: func(context.Context) rxgo.Observable { return nil },
			check: func(t *testing.T, err error) {
				re := runtimeErr(t, err, CommandException)
				assert.Equal(t, errNilObservable, re.Cause)
			},
			events: ev(metrics.Failure, metrics.FallbackMissing),
			health: metrics.HealthCounts{TotalRequests: 1, ErrorCount: 1, ErrorPercentage: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			s := Setter{Runtime: e.rt, CommandKey: "S", Properties: tt.props, Classifier: classify}
			st := NewStream[any](s, tt.construct)
			if tt.fallback != nil {
				st.WithFallback(tt.fallback)
			}
			values, errs := items(t, st.ToObservable())
			assert.Equal(t, tt.values, values)
			if tt.check == nil {
				assert.Empty(t, errs)
			} else if assert.Len(t, errs, 1) {
				tt.check(t, errs[0])
			}
			assert.Equal(t, tt.events, st.ExecutionEvents())
			e.clk.Advance(500 * time.Millisecond) // a health snapshot
			assert.Equal(t, tt.health, e.rt.Metrics().Command("S").HealthCounts())
			e.assertIdle("S")
		})
	}
}

// TestStreamFailingOnStartFailsFast: a Stream whose onStart hook fails gets the hook's
// error without running construct or the fallback, and its health is untouched.
func TestStreamFailingOnStartFailsFast(t *testing.T) {
	e := newEnv(t)
	e.rt.Hooks().SetExecutionHook(faultyHook{RecordingHook: e.rec, method: "OnStart"})
	constructed := false
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, func(context.Context) rxgo.Observable {
		constructed = true
		return rxgo.Just(1)()
	}).WithFallback(func(context.Context, error) rxgo.Observable { return rxgo.Just("fb")() })
	values, errs := items(t, st.ToObservable())
	assert.Empty(t, values)
	require.Len(t, errs, 1)
	runtimeErr(t, errs[0], CommandException)
	assert.ErrorIs(t, errs[0], errHook)
	assert.False(t, constructed)
	assert.Equal(t, ev(metrics.BadRequest), st.ExecutionEvents(), "no fallback, no health effect, but counted")
	assert.Equal(t, []string{"OnStart", "OnError"}, e.rec.Names())
	e.clk.Advance(500 * time.Millisecond)
	assert.Equal(t, metrics.HealthCounts{}, e.rt.Metrics().Command("S").HealthCounts())
	e.assertIdle("S")
}

// TestStreamObserveReportsARefusedStart: Observe of a stream that cannot start (its
// single use taken) replays the error at once.
func TestStreamObserveReportsARefusedStart(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, emitting(1))
	_, errs := items(t, st.ToObservable())
	require.Empty(t, errs)
	values, errs := items(t, st.Observe(context.Background()))
	assert.Empty(t, values)
	require.Len(t, errs, 1)
	runtimeErr(t, errs[0], BadRequestException)
}
