package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestSemaphoreTimeout(t *testing.T) {
	errFallback := errors.New("fallback boom")
	tests := []struct {
		name     string
		fallback func(context.Context, error) (string, error)
		want     []metrics.EventType
		fbErr    error
	}{
		{"no fallback", nil, ev(metrics.Timeout, metrics.FallbackMissing), ErrFallbackMissing},
		{"working fallback", fallbackValue("fb"), ev(metrics.Timeout, metrics.FallbackSuccess), nil},
		{"failing fallback", fallbackFailing(errFallback), ev(metrics.Timeout, metrics.FallbackFailure), errFallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			cmd := New(e.setter("T", "execution.isolation.thread.timeoutInMilliseconds", "100"),
				e.sleeper(150*time.Millisecond, "late"))
			var seen error
			if tt.fallback != nil {
				cmd.WithFallback(func(ctx context.Context, err error) (string, error) {
					seen = err
					assert.True(t, cmd.IsResponseTimedOut(), "the fallback can ask whether it timed out")
					return tt.fallback(ctx, err)
				})
			}
			got, err := cmd.Execute(context.Background())
			assert.Equal(t, tt.want, cmd.ExecutionEvents())
			assert.True(t, cmd.IsResponseTimedOut())
			assert.Equal(t, ErrTimeout, cmd.FailedExecutionError())
			if tt.fbErr == nil {
				require.NoError(t, err)
				assert.Equal(t, "fb", got)
				assert.Equal(t, ErrTimeout, seen)
			} else {
				re := runtimeErr(t, err, Timeout)
				assert.ErrorIs(t, err, ErrTimeout)
				assert.Equal(t, tt.fbErr, re.FallbackErr)
			}
			e.assertIdle("T")
		})
	}
}

func TestSemaphoreTimeoutCancelsTheRunContext(t *testing.T) {
	e := newEnv(t)
	started := make(chan struct{})
	cmd := New(e.setter("T", "execution.isolation.thread.timeoutInMilliseconds", "100"), blockUntilDone(started)).
		WithFallback(fallbackValue("fb"))
	done := make(chan struct{})
	base := e.clk.Pending() // the metrics stream's timers
	go func() {
		defer close(done)
		<-started
		e.clk.BlockUntil(base + 1) // the timer armed by ctx.Done
		e.clk.Advance(100 * time.Millisecond)
	}()
	got, err := cmd.Execute(context.Background())
	<-done
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), cmd.ExecutionEvents())
	assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnFallbackStart", "OnFallbackEmit", "OnEmit",
		"OnFallbackSuccess", "OnSuccess"}, e.rec.Names(), "timeout: like a failure without onExecutionError")
	e.assertNoDeadlines("T")
	e.assertIdle("T")
}

func TestRunContextDeadlineAndErr(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("T", "execution.isolation.thread.timeoutInMilliseconds", "100"),
		func(ctx context.Context) (string, error) {
			d, ok := ctx.Deadline()
			assert.True(t, ok)
			assert.Equal(t, epoch.Add(100*time.Millisecond), d)
			assert.NoError(t, ctx.Err())
			e.clk.Advance(100 * time.Millisecond)
			return "", ctx.Err() // polling Err sees the timeout without a timer
		})
	_, err := cmd.Execute(context.Background())
	runtimeErr(t, err, Timeout)
	assert.Equal(t, ev(metrics.Timeout, metrics.FallbackMissing), cmd.ExecutionEvents())
	e.assertIdle("T")
}

func TestTimeoutWithoutInterruptKeepsTheContext(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("T", "execution.isolation.thread.timeoutInMilliseconds", "100",
		"execution.isolation.thread.interruptOnTimeout", "false"),
		func(ctx context.Context) (string, error) {
			_, ok := ctx.Deadline()
			assert.False(t, ok)
			e.clk.Advance(time.Second)
			assert.NoError(t, ctx.Err())
			return "late", nil
		}).WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got, "the outcome is still TIMEOUT")
	assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess), cmd.ExecutionEvents())
	e.assertIdle("T")
}

func TestTimeoutDisabled(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("T", "execution.timeout.enabled", "false",
		"execution.isolation.thread.timeoutInMilliseconds", "100"), e.sleeper(5*time.Second, "slow"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "slow", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	assert.Equal(t, 5*time.Second, cmd.ExecutionLatency())
	assert.Equal(t, 5*time.Second, cmd.TotalLatency())
	e.assertIdle("T")
}
