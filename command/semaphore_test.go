package command

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// holdRun returns a run that signals started and waits for release.
func holdRun(started chan<- struct{}, release <-chan struct{}) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		close(started)
		<-release
		return "held", nil
	}
}

func TestExecutionSemaphoreRejection(t *testing.T) {
	for _, withFallback := range []bool{true, false} {
		t.Run(map[bool]string{true: "with fallback", false: "without fallback"}[withFallback], func(t *testing.T) {
			e := newEnv(t)
			s := e.setter("S", "execution.isolation.semaphore.maxConcurrentRequests", "1")
			started, release := make(chan struct{}), make(chan struct{})
			first := New(s, holdRun(started, release))
			done := make(chan error)
			go func() {
				_, err := first.Execute(context.Background())
				done <- err
			}()
			<-started
			assert.EqualValues(t, 1, e.key("S").metrics.CurrentConcurrency())
			permits, _ := e.rt.Permits("S")
			assert.Equal(t, 1, permits, "the semaphore's permits are the key's concurrency")

			e.rec.Reset()
			second := New(s, value("never"))
			if withFallback {
				second.WithFallback(fallbackValue("fb"))
			}
			got, err := second.Execute(context.Background())
			if withFallback {
				require.NoError(t, err)
				assert.Equal(t, "fb", got)
				assert.Equal(t, ev(metrics.SemaphoreRejected, metrics.FallbackSuccess), second.ExecutionEvents())
				assert.Equal(t, []string{"OnStart", "OnFallbackStart", "OnFallbackEmit", "OnEmit",
					"OnFallbackSuccess", "OnSuccess"}, e.rec.Names())
			} else {
				runtimeErr(t, err, RejectedSemaphoreExecution)
				assert.ErrorIs(t, err, ErrSemaphoreRejected)
				assert.Equal(t, ev(metrics.SemaphoreRejected, metrics.FallbackMissing), second.ExecutionEvents())
				assert.Equal(t, []string{"OnStart", "OnError"}, e.rec.Names())
			}
			assert.True(t, second.IsResponseRejected())
			assert.True(t, second.IsResponseSemaphoreRejected())
			assert.Equal(t, ErrSemaphoreRejected, second.FailedExecutionError())
			assert.EqualValues(t, 1, e.key("S").metrics.CurrentConcurrency(), "a rejection holds nothing")

			close(release)
			require.NoError(t, <-done)
			assert.Equal(t, ev(metrics.Success), first.ExecutionEvents())
			e.assertIdle("S")
		})
	}
}

func TestFallbackSemaphoreRejection(t *testing.T) {
	e := newEnv(t)
	s := e.setter("S", "fallback.isolation.semaphore.maxConcurrentRequests", "1")
	started, release := make(chan struct{}), make(chan struct{})
	first := New(s, failing(errBoom)).WithFallback(func(context.Context, error) (string, error) {
		close(started)
		<-release
		return "fb1", nil
	})
	done := make(chan error)
	go func() {
		_, err := first.Execute(context.Background())
		done <- err
	}()
	<-started
	second := New(s, failing(errBoom)).WithFallback(fallbackValue("fb2"))
	_, err := second.Execute(context.Background())
	re := runtimeErr(t, err, RejectedSemaphoreFallback)
	assert.ErrorIs(t, err, ErrFallbackRejected)
	assert.ErrorIs(t, err, errBoom, "the cause is the run's error")
	assert.Equal(t, ErrFallbackRejected, re.FallbackErr)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackRejection), second.ExecutionEvents())
	close(release)
	require.NoError(t, <-done)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), first.ExecutionEvents())
	e.assertIdle("S")
}

func TestSemaphoreLimitIsDynamic(t *testing.T) {
	e := newEnv(t)
	s := e.setter("S")
	e.src.Set("hystrix.command.S.execution.isolation.semaphore.maxConcurrentRequests", "0")
	cmd := New(s, value("v"))
	_, err := cmd.Execute(context.Background())
	runtimeErr(t, err, RejectedSemaphoreExecution)
	e.src.Set("hystrix.command.S.execution.isolation.semaphore.maxConcurrentRequests", "1")
	got, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	e.assertIdle("S")
}
