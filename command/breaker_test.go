package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// tick lets the metrics stream fold what was published, moves the clock and lets the
// stream publish the health snapshots of the buckets that closed.
func (e *env) tick(d time.Duration) {
	e.rt.Metrics().Flush()
	e.clk.Advance(d)
	e.rt.Metrics().Flush()
}

func TestForceOpen(t *testing.T) {
	e := newEnv(t)
	s := e.setter("B", "circuitBreaker.forceOpen", "true")
	cmd := New(s, value("v")).WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	assert.Equal(t, ev(metrics.ShortCircuited, metrics.FallbackSuccess), cmd.ExecutionEvents())
	assert.True(t, cmd.IsResponseShortCircuited())
	assert.True(t, cmd.IsCircuitBreakerOpen())
	assert.Equal(t, []string{"OnStart", "OnFallbackStart", "OnFallbackEmit", "OnEmit", "OnFallbackSuccess",
		"OnSuccess"}, e.rec.Names())

	e.rec.Reset()
	cmd = New(s, value("v"))
	_, err = cmd.Execute(context.Background())
	runtimeErr(t, err, ShortCircuit)
	assert.ErrorIs(t, err, ErrShortCircuited)
	assert.Equal(t, ev(metrics.ShortCircuited, metrics.FallbackMissing), cmd.ExecutionEvents())
	assert.Equal(t, []string{"OnStart", "OnError"}, e.rec.Names())
	e.assertIdle("B")
}

func TestBreakerTripsThenShortCircuitsThenRecovers(t *testing.T) {
	e := newEnv(t)
	s := e.setter("B",
		"circuitBreaker.requestVolumeThreshold", "3",
		"circuitBreaker.sleepWindowInMilliseconds", "1000",
		"metrics.healthSnapshot.intervalInMilliseconds", "100")
	for range 3 {
		cmd := New(s, failing(errBoom)).WithFallback(fallbackValue("fb"))
		_, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), cmd.ExecutionEvents())
	}
	e.tick(200 * time.Millisecond)

	cmd := New(s, value("v")).WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	assert.Equal(t, ev(metrics.ShortCircuited, metrics.FallbackSuccess), cmd.ExecutionEvents())
	assert.True(t, cmd.IsCircuitBreakerOpen())

	e.tick(time.Second) // sleep window over: the next command is the trial
	cmd = New(s, value("v"))
	got, err = cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	assert.False(t, cmd.IsCircuitBreakerOpen(), "a successful trial closes the breaker")
	e.assertIdle("B")
}

func TestBusinessErrorsDoNotTripTheBreaker(t *testing.T) {
	e := newEnv(t)
	s := e.setter("B", "circuitBreaker.requestVolumeThreshold", "3",
		"metrics.healthSnapshot.intervalInMilliseconds", "100")
	s.Classifier = func(err error) Class {
		if c := DefaultClassifier(err); c != ClassFailure {
			return c
		}
		return ClassSuccess
	}
	for range 5 {
		_, err := New(s, failing(errBoom)).Execute(context.Background())
		assert.Same(t, errBoom, err)
	}
	for range 5 {
		_, err := New(s, failing(BadRequest(errBoom))).Execute(context.Background())
		assert.Same(t, errBoom, err)
	}
	e.tick(200 * time.Millisecond)
	cmd := New(s, value("v"))
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.False(t, cmd.IsCircuitBreakerOpen())
	assert.EqualValues(t, 0, e.key("B").metrics.HealthCounts().ErrorCount)
	e.assertIdle("B")
}

func TestForceClosed(t *testing.T) {
	e := newEnv(t)
	s := e.setter("B", "circuitBreaker.forceClosed", "true",
		"circuitBreaker.requestVolumeThreshold", "3",
		"metrics.healthSnapshot.intervalInMilliseconds", "100")
	for range 5 {
		_, _ = New(s, failing(errBoom)).Execute(context.Background())
	}
	e.tick(200 * time.Millisecond)
	assert.EqualValues(t, 100, e.key("B").metrics.HealthCounts().ErrorPercentage)
	cmd := New(s, value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())

	e.src.Set("hystrix.command.B.circuitBreaker.forceOpen", "true") // forceOpen beats forceClosed
	cmd = New(s, value("v"))
	_, err = cmd.Execute(context.Background())
	runtimeErr(t, err, ShortCircuit)
	e.assertIdle("B")
}
