package command

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// alone makes e's runtime assemble the chains of the keys it resolves from now on of the
// kernel (terminal, which concludes and records the execution; timeout, which starts the
// attempt's clock and opens its race; run, which calls the scripted run) and s, outside
// the timeout: a test of one stage, with nothing of the layout around it (no fallback, no
// breaker gate, no isolation but s's own).
func alone(e *env, s stage) { e.rt.layout = []stage{terminal{}, s, timeout{}, run{}} }

// The execution semaphore alone: a permit per execution up to its maximum, a refusal
// (SEMAPHORE_REJECTED, the caller's error since no fallback stands around it) beyond it,
// and every permit back once the executions ended.
func TestTheSemaphoreAlone(t *testing.T) {
	e := newEnv(t)
	alone(e, semaphore{})
	s := e.setter("S", "execution.isolation.semaphore.maxConcurrentRequests", "1")
	done := holdOne(context.Background(), s)
	cmd := New(s, value("v"))
	_, err := cmd.Execute(context.Background())
	require.ErrorIs(t, err, ErrSemaphoreRejected)
	assert.Equal(t, ev(metrics.SemaphoreRejected), cmd.ExecutionEvents())
	require.NoError(t, done())
	got, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, []int64{2, 1}, e.counts("S", metrics.Success, metrics.SemaphoreRejected))
	e.assertIdle("S")
}

// The adaptive limit alone: a permit while the limit has room, ADAPTIVE_REJECTED (with
// the limit's cause) beyond it, and what each execution teaches the limit given back.
func TestTheAdaptiveLimitAlone(t *testing.T) {
	e := newEnv(t)
	alone(e, adaptiveLimit{})
	s := e.adaptiveSetter("A", "1")
	done := holdOne(context.Background(), s)
	cmd := New(s, value("v"))
	_, err := cmd.Execute(context.Background())
	require.ErrorIs(t, err, adaptive.ErrLimit)
	assert.Equal(t, ev(metrics.AdaptiveRejected), cmd.ExecutionEvents())
	require.NoError(t, done())
	_, err = New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Zero(t, e.key("A").adaptiveLimiter().Inflight())
	e.assertIdle("A")
}

// Graded throttling alone: nothing refused below its minimum of requests; then, while
// the dependency accepts none, a call is refused (THROTTLED) whenever the draw falls under
// the refusal probability, here always; the refusal is not a request the dependency saw.
func TestTheThrottleAlone(t *testing.T) {
	e := newEnv(t)
	e.rt.random = func() uint64 { return 0 } // every draw under a positive probability
	alone(e, throttleGate{})
	s := e.setter("T", "throttle.enabled", "true", "throttle.minRequests", "3")
	fail := func(context.Context) (string, error) { return "", errBoom }
	for i := range 3 {
		_, err := New(s, fail).Execute(context.Background())
		require.ErrorIs(t, err, errBoom, "call %d: below throttle.minRequests", i)
	}
	cmd := New(s, fail)
	_, err := cmd.Execute(context.Background())
	require.ErrorIs(t, err, ErrThrottled)
	assert.Equal(t, ev(metrics.Throttled), cmd.ExecutionEvents())
	assert.Equal(t, []int64{3, 1}, e.counts("T", metrics.Failure, metrics.Throttled))
	e.assertIdle("T")
}

// The retry alone: a failed attempt is run again, each attempt an execution of the
// dependency of its own (RETRY on every one after the first), until one succeeds or
// retry.maxAttempts ran; the outcome is the last attempt's.
func TestTheRetryAlone(t *testing.T) {
	e := newEnv(t)
	alone(e, retry{})
	run, calls := failingTimes(2, "third")
	got, err := New(e.retrySetter("R", "3"), run).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "third", got)
	assert.EqualValues(t, 3, calls.Load())
	assert.Equal(t, []int64{2, 1, 2}, e.counts("R", metrics.Failure, metrics.Success, metrics.Retry))

	run, calls = failingTimes(5, "")
	_, err = New(e.retrySetter("R2", "2"), run).Execute(context.Background())
	require.True(t, errors.Is(err, errBoom), "the last attempt's failure: %v", err)
	assert.EqualValues(t, 2, calls.Load())
	e.assertIdle("R")
	e.assertIdle("R2")
}
