package command

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
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

// TestRunContextAfterItEnded: a run that only looks at its context once it has ended, by
// the caller's cancel or by the deadline passing, finds it ended whichever method it asks
// (Err, Done, AfterFunc), and the outcome follows (CANCELLED, TIMEOUT).
func TestRunContextAfterItEnded(t *testing.T) {
	tests := []struct {
		name   string
		end    func(e *env, cancel context.CancelFunc)
		ask    func(t *testing.T, ctx context.Context)
		want   error
		events []metrics.EventType
	}{
		{"Err after the caller cancelled", func(_ *env, cancel context.CancelFunc) { cancel() },
			func(t *testing.T, ctx context.Context) {}, context.Canceled, ev(metrics.Cancelled)},
		{"Done after the caller cancelled", func(_ *env, cancel context.CancelFunc) { cancel() },
			closedNow, context.Canceled, ev(metrics.Cancelled)},
		{"Done after the deadline passed", func(e *env, _ context.CancelFunc) { e.clk.Advance(150 * time.Millisecond) },
			closedNow, context.DeadlineExceeded, ev(metrics.Timeout, metrics.FallbackSuccess)},
		{"AfterFunc once Err saw the deadline pass", func(e *env, _ context.CancelFunc) { e.clk.Advance(150 * time.Millisecond) },
			func(t *testing.T, ctx context.Context) {
				require.Error(t, ctx.Err())
				called := make(chan struct{})
				// the method context.AfterFunc uses once Done is not closed yet
				stop := ctx.(interface{ AfterFunc(func()) func() bool }).AfterFunc(func() { close(called) })
				select {
				case <-called:
				case <-time.After(5 * time.Second):
					t.Fatal("AfterFunc of an ended context was not called")
				}
				assert.False(t, stop(), "already called")
			}, context.DeadlineExceeded, ev(metrics.Timeout, metrics.FallbackSuccess)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			caller, cancel := context.WithCancel(context.Background())
			defer cancel()
			var runErr error
			cmd := New(e.setter("T", "execution.isolation.thread.timeoutInMilliseconds", "100"),
				func(ctx context.Context) (string, error) {
					tt.end(e, cancel)
					tt.ask(t, ctx)
					runErr = ctx.Err()
					return "late", runErr
				}).WithFallback(fallbackValue("fb"))
			got, err := cmd.Execute(caller)
			assert.Equal(t, tt.want, runErr)
			assert.Equal(t, tt.events, cmd.ExecutionEvents())
			if tt.want == context.Canceled {
				assert.ErrorIs(t, err, context.Canceled, "the caller left: it gets its context's error")
			} else {
				require.NoError(t, err)
				assert.Equal(t, "fb", got)
			}
			e.assertNoDeadlines("T")
			e.assertIdle("T")
		})
	}
}

// closedNow fails the test unless ctx.Done is already closed.
func closedNow(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
	default:
		t.Error("Done is not closed although the context ended")
	}
}

// jumpyClock is a fake clock that moves by a step right after the reading it is primed
// for: a test's Advance landing between the deadline queue's reading of the clock and the
// arming of its timer.
type jumpyClock struct {
	*clock.Fake
	step atomic.Int64 // the jump after the next reading, once
}

func (c *jumpyClock) Since(t time.Time) time.Duration {
	d := c.Fake.Since(t)
	if step := c.step.Swap(0); step != 0 {
		c.Fake.Advance(time.Duration(step))
	}
	return d
}

// A deadline whose timer is armed while the clock moves (a test advancing a fake clock as
// the run asks for its context's Done) still ends the run at the timeout, not a step
// later, nor never.
func TestTimeoutHoldsWhenTheClockMovesWhileItIsArmed(t *testing.T) {
	clk := &jumpyClock{Fake: clock.NewFake(epoch)}
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore()))
	defer rt.Close()
	k, err := Define[string](Setter{Runtime: rt, CommandKey: "J", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.thread.timeoutInMilliseconds": "300"}})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := k.ExecutePooled(context.Background(), func(ctx context.Context) (string, error) {
			clk.step.Store(int64(300 * time.Millisecond)) // the timeout's length: due as the timer is armed
			<-ctx.Done()
			return "", ctx.Err()
		})
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrTimeout)
	case <-time.After(5 * time.Second):
		clk.Advance(time.Hour) // let the run go, for goleak
		<-done
		t.Fatal("the run's context never ended: the timer was armed a step late")
	}
}
