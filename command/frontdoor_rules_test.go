package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// The front doors are views of one execution: these are the rules each must keep, with
// the bugs the chain-of-stages rewrite fixed.

func TestObserveStartsWithTheCallersContext(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			ctx, rc := cache.NewRequestContext(context.Background())
			defer rc.Close()
			ctx = context.WithValue(ctx, hookCtxKey("caller"), "req-1")
			s := e.setter("O", "execution.isolation.strategy", iso)
			var seen atomic.Value
			first := New(s, func(ctx context.Context) (string, error) {
				seen.Store(ctx.Value(hookCtxKey("caller")))
				return "v", nil
			}).WithCacheKey("k")
			for range 2 {
				values, errs := items(t, first.Observe(ctx))
				assert.Empty(t, errs, "a cache key with a request context works through Observe")
				assert.Equal(t, []any{"v"}, values)
			}
			assert.Equal(t, "req-1", seen.Load(), "run sees the caller's context values")
			hit := New(s, value("never")).WithCacheKey("k")
			values, _ := items(t, hit.Observe(ctx))
			assert.Equal(t, []any{"v"}, values)
			assert.True(t, hit.IsResponseFromCache())
			assert.Len(t, rc.Log().Entries(), 2, "both commands are in the request log")
		})
	}
}

func TestObserveUnderSemaphoreRunsDuringTheCall(t *testing.T) {
	e := newEnv(t)
	ran := false
	cmd := New(e.setter("O"), func(context.Context) (string, error) {
		ran = true // no synchronisation needed: the run is on the caller's goroutine
		return "v", nil
	})
	obs := cmd.Observe(context.Background())
	assert.True(t, ran, "Observe runs a SEMAPHORE command before it returns, as in Hystrix")
	assert.True(t, cmd.IsExecutionComplete())
	values, _ := items(t, obs.Map(func(_ context.Context, v any) (any, error) { return v.(string) + "!", nil }))
	assert.Equal(t, []any{"v!"}, values, "operators chained on it see the outcome too")
}

func TestQueueReportsRefusalsItself(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			open := e.setter("Q", "execution.isolation.strategy", iso, "circuitBreaker.forceOpen", "true")
			f, err := New(open, value("v")).Queue(context.Background())
			re := runtimeErr(t, err, ShortCircuit)
			assert.ErrorIs(t, re, ErrShortCircuited)
			_, getErr := f.Get(context.Background())
			assert.Equal(t, err, getErr, "the future holds the same error")

			f, err = New(open, value("v")).WithFallback(fallbackValue("fb")).Queue(context.Background())
			require.NoError(t, err, "a fallback that answers is no refusal")
			got, err := f.Get(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "fb", got)

			f, err = New(e.setter("Q2", "execution.isolation.strategy", iso), failing(errBoom)).Queue(context.Background())
			require.NoError(t, err, "execution errors come from Get, not Queue")
			_, err = f.Get(context.Background())
			runtimeErr(t, err, CommandException)
		})
	}
}

func TestQueuedDuplicatesRunTheFirstQueued(t *testing.T) {
	e := newEnv(t)
	ctx := requestContext(t)
	s := e.threadSetter("D", nil)
	release := make(chan struct{})
	var ran []string
	var runs atomic.Int32
	run := func(name string) func(context.Context) (string, error) {
		return func(context.Context) (string, error) {
			runs.Add(1)
			<-release
			ran = append(ran, name)
			return name, nil
		}
	}
	futures := make([]interface {
		Get(context.Context) (string, error)
	}, 3)
	for i, name := range []string{"first", "second", "third"} {
		f, err := New(s, run(name)).WithCacheKey("k").Queue(ctx)
		require.NoError(t, err)
		futures[i] = f
	}
	close(release)
	for _, f := range futures {
		got, err := f.Get(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "first", got)
	}
	assert.EqualValues(t, 1, runs.Load())
	assert.Equal(t, []string{"first"}, ran)
	e.waitPoolIdle("D")
}

func TestUnsubscribedExecutionIsNotComplete(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cmd := New(e.threadSetter("U", nil), blockUntilDone(started))
	go func() {
		<-started
		cancel()
	}()
	_, err := cmd.Execute(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, cmd.IsExecutionComplete(), "Hystrix: an unsubscribed command is not complete")
	assert.NoError(t, cmd.ExecutionError(), "Hystrix: no execution error after an unsubscribe")
	assert.True(t, cmd.IsCancelled())
	e.waitPoolIdle("U")
	e.assertIdle("U")
}

func TestRejectedCommandHasNoExecutionTime(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("R", "execution.isolation.semaphore.maxConcurrentRequests", "0"), value("v")).
		WithFallback(fallbackValue("fb"))
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.True(t, cmd.IsExecutionComplete())
	assert.Equal(t, time.Duration(-1), cmd.ExecutionTime(), "Hystrix: -1 when run did not execute")

	ran := New(e.setter("R2"), e.sleeper(30*time.Millisecond, "v"))
	_, err = ran.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 30*time.Millisecond, ran.ExecutionTime())
}

func TestTimedOutExecutionRecordsTheTimeUntilTheTimeout(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.setter("T", "execution.isolation.thread.timeoutInMilliseconds", "100"),
		e.sleeper(250*time.Millisecond, "late")).WithFallback(fallbackValue("fb"))
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.True(t, cmd.IsResponseTimedOut())
	assert.Equal(t, 100*time.Millisecond, cmd.ExecutionLatency(), "Hystrix records the time until the timeout")
	e.tick(time.Minute)
	assert.Equal(t, 100*time.Millisecond, e.rt.Metrics().Command("T").ExecutionLatencyPercentile(100).Round(10*time.Millisecond),
		"and so do the latency percentiles")
}

// Hystrix's testEarlyUnsubscribeDuringExecutionViaToObservable: a subscription that ends
// while run runs leaves the command not complete, CANCELLED, with every permit back, and
// an execution time that is the time until the unsubscribe (not -1).
func TestEarlyUnsubscribeDuringExecutionViaToObservable(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			s := e.setter("U", "execution.isolation.strategy", iso)
			s.ThreadPoolKey = "UPool"
			started := make(chan struct{})
			cmd := New(s, blockUntilDone(started))
			ctx, unsubscribe := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range cmd.ToObservable().Observe(rxgo.WithContext(ctx)) {
				}
			}()
			<-started
			e.clk.Advance(10 * time.Millisecond)
			unsubscribe()
			<-done
			require.Eventually(t, cmd.IsCancelled, 5*time.Second, time.Millisecond)
			if iso == "THREAD" {
				e.waitPoolIdle("U")
				assert.True(t, cmd.IsExecutedInThread())
			}
			assert.False(t, cmd.IsExecutionComplete())
			assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
			assert.Equal(t, 10*time.Millisecond, cmd.ExecutionTime(), "the time until the unsubscribe")
			e.assertIdle("U")
		})
	}
}
