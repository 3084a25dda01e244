package command

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// retrySetter is a Setter of key with retries up to attempts and no backoff, plus kv.
func (e *env) retrySetter(key string, attempts string, kv ...string) Setter {
	return e.setter(key, append([]string{"retry.maxAttempts", attempts, "retry.backoffInMilliseconds", "0"}, kv...)...)
}

// failingTimes returns a run that fails its first n calls and then returns v, and the
// number of calls.
func failingTimes(n int, v string) (func(context.Context) (string, error), *atomic.Int32) {
	var calls atomic.Int32
	return func(context.Context) (string, error) {
		if int(calls.Add(1)) <= n {
			return "", errBoom
		}
		return v, nil
	}, &calls
}

// counts returns the cumulative counts of es for key, after a flush.
func (e *env) counts(key string, es ...metrics.EventType) []int64 {
	return cumulativeCounts(e.rt, e.clk, key, es...)
}

// cumulativeCounts returns key's cumulative counts of es once the rolling-stats bucket in
// progress closed (the clock moves on by a second).
func cumulativeCounts(rt *Runtime, clk *clock.Fake, key string, es ...metrics.EventType) []int64 {
	clk.Advance(time.Second)
	rt.Metrics().Flush()
	m := rt.Metrics().Command(key)
	out := make([]int64, len(es))
	for i, ev := range es {
		out[i] = m.CumulativeCount(ev)
	}
	return out
}

func (e *env) hookCount(name string) int {
	return len(slices.DeleteFunc(e.rec.Names(), func(n string) bool { return n != name }))
}

func TestRetrySucceedsAfterTwoFailures(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			s := e.retrySetter("R", "3", "execution.isolation.strategy", iso)
			run, calls := failingTimes(2, "third")
			cmd := New(s, run).WithFallback(fallbackValue("fb"))
			got, err := cmd.Execute(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "third", got)
			assert.Equal(t, int32(3), calls.Load())
			assert.Equal(t, ev(metrics.Success, metrics.Failure, metrics.Retry), cmd.ExecutionEvents())
			assert.Equal(t, 1, e.hookCount("OnStart"))
			assert.Equal(t, 3, e.hookCount("OnExecutionStart"))
			assert.Equal(t, 1, e.hookCount("OnSuccess"))
			assert.Zero(t, e.hookCount("OnFallbackStart"))
			assert.Equal(t, []int64{2, 1, 2, 0}, e.counts("R", metrics.Failure, metrics.Success, metrics.Retry, metrics.FallbackSuccess),
				"each attempt a completion: two FAILUREs, one SUCCESS, two RETRYs")
			assert.Equal(t, metrics.NewHealthCounts(3, 2), e.rt.Metrics().Command("R").HealthCounts())
			if iso == "THREAD" {
				e.waitPoolIdle("R")
			}
			e.assertIdle("R")
		})
	}
}

func TestRetryExhaustedFallsBackOnce(t *testing.T) {
	e := newEnv(t)
	s := e.retrySetter("F", "3")
	run, calls := failingTimes(100, "")
	cmd := New(s, run).WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	assert.Equal(t, int32(3), calls.Load())
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess, metrics.Retry), cmd.ExecutionEvents())
	assert.ErrorIs(t, cmd.FailedExecutionError(), errBoom)
	assert.Equal(t, 1, e.hookCount("OnFallbackStart"), "the fallback runs once, at the end")
	assert.Equal(t, []int64{3, 2, 1}, e.counts("F", metrics.Failure, metrics.Retry, metrics.FallbackSuccess))
	e.assertIdle("F")
}

// The breaker sits inside the retry: it sees each attempt, and an attempt it short
// circuits ends the retries (the fallback answers SHORT_CIRCUITED).
func TestRetryStopsWhenTheBreakerOpens(t *testing.T) {
	e := newEnv(t)
	s := e.retrySetter("B", "5", "circuitBreaker.requestVolumeThreshold", "2",
		"circuitBreaker.evaluateOnFailure", "true")
	run, calls := failingTimes(100, "")
	cmd := New(s, run).WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	assert.Equal(t, int32(2), calls.Load(), "the third attempt is short-circuited")
	assert.Equal(t, ev(metrics.Failure, metrics.ShortCircuited, metrics.FallbackSuccess, metrics.Retry), cmd.ExecutionEvents())
	assert.True(t, cmd.IsResponseShortCircuited())
	assert.True(t, e.key("B").breaker.IsOpen())
	assert.Equal(t, []int64{2, 1, 2}, e.counts("B", metrics.Failure, metrics.ShortCircuited, metrics.Retry))
	e.assertIdle("B")
}

func TestRetryNeverRetriesABadRequestOrARefusal(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	cmd := New(e.retrySetter("BR", "3"), func(context.Context) (string, error) {
		calls.Add(1)
		return "", BadRequest(errBoom)
	})
	_, err := cmd.Execute(context.Background())
	assert.ErrorIs(t, err, errBoom, "a bad request's error as is")
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, ev(metrics.BadRequest), cmd.ExecutionEvents())

	cmd = New(e.retrySetter("SR", "3", "execution.isolation.semaphore.maxConcurrentRequests", "0"), value("v")).
		WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got)
	assert.Equal(t, ev(metrics.SemaphoreRejected, metrics.FallbackSuccess), cmd.ExecutionEvents())
	e.assertIdle("BR")
	e.assertIdle("SR")
}

// The backoff waits on the runtime's clock: exponential with full jitter, at most the
// base before the first retry and twice the base before the second.
func TestRetryBacksOffOnTheClock(t *testing.T) {
	e := newEnv(t)
	s := e.setter("W", "retry.maxAttempts", "3", "retry.backoffInMilliseconds", "100",
		"execution.timeout.enabled", "false")
	run, calls := failingTimes(2, "v")
	cmd := New(s, run)
	out := make(chan error, 1)
	base := e.clk.Pending() // the metrics stream's timers
	go func() { _, err := cmd.Execute(context.Background()); out <- err }()
	e.clk.BlockUntil(base + 1)
	assert.Equal(t, int32(1), calls.Load(), "waiting for the first backoff")
	e.clk.Advance(100 * time.Millisecond) // at most base: the second attempt runs
	// The second backoff (at most 2 x base) may be armed, and even fire, during that
	// Advance when its random wait is short: wait for it armed, or for the third attempt.
	require.Eventually(t, func() bool {
		return calls.Load() == 3 || calls.Load() == 2 && e.clk.Pending() > base
	}, 5*time.Second, time.Millisecond)
	e.clk.Advance(200 * time.Millisecond)
	require.NoError(t, <-out)
	assert.Equal(t, int32(3), calls.Load())
	e.assertIdle("W")
}

// A wait the dependency asked for replaces the backoff; a negative one means no retry.
func TestRetryWaitsWhatTheDependencyAskedFor(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	cmd := New(e.retrySetter("RA", "2"), func(context.Context) (string, error) {
		if calls.Add(1) == 1 {
			return "", RetryAfter(errBoom, 300*time.Millisecond)
		}
		return "v", nil
	})
	out := make(chan error, 1)
	base := e.clk.Pending() // the metrics stream's timers
	go func() { _, err := cmd.Execute(context.Background()); out <- err }()
	e.clk.BlockUntil(base + 1)
	e.clk.Advance(299 * time.Millisecond)
	assert.Equal(t, int32(1), calls.Load(), "still waiting")
	e.clk.Advance(time.Millisecond)
	require.NoError(t, <-out)
	assert.Equal(t, int32(2), calls.Load())

	cmd = New(e.retrySetter("RN", "2"), failing(RetryAfter(errBoom, -1)))
	_, err := cmd.Execute(context.Background())
	re := runtimeErr(t, err, CommandException)
	assert.ErrorIs(t, re, errBoom)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), cmd.ExecutionEvents())
}

func TestRetryLeavesACallMarkedWithoutRetry(t *testing.T) {
	e := newEnv(t)
	run, calls := failingTimes(100, "")
	_, err := New(e.retrySetter("NR", "3"), run).Execute(WithoutRetry(context.Background()))
	runtimeErr(t, err, CommandException)
	assert.Equal(t, int32(1), calls.Load())
}

// A caller that leaves during the backoff gets CANCELLED at once: the backoff's timer is
// stopped, no goroutine is left (goleak), every permit is back.
func TestRetryCallerCancelsDuringBackoff(t *testing.T) {
	for _, door := range []string{"Execute", "Queue"} {
		t.Run(door, func(t *testing.T) {
			e := newEnv(t)
			s := e.setter("C", "retry.maxAttempts", "3", "retry.backoffInMilliseconds", "1000")
			run, calls := failingTimes(100, "")
			cmd := New(s, run).WithFallback(fallbackValue("fb"))
			ctx, cancel := context.WithCancel(context.Background())
			out := make(chan error, 1)
			base := e.clk.Pending() // the metrics stream's timers
			if door == "Execute" {
				go func() { _, err := cmd.Execute(ctx); out <- err }()
			} else {
				f, err := cmd.Queue(ctx) // returns as the backoff starts
				require.NoError(t, err)
				go func() { _, err := f.Get(context.Background()); out <- err }()
			}
			e.clk.BlockUntil(base + 1)
			cancel()
			assert.ErrorIs(t, <-out, context.Canceled)
			assert.Equal(t, int32(1), calls.Load())
			assert.Equal(t, ev(metrics.Failure, metrics.Cancelled), cmd.ExecutionEvents())
			assert.Zero(t, e.hookCount("OnFallbackStart"))
			assert.Equal(t, base, e.clk.Pending(), "the backoff's timer is stopped")
			assert.Equal(t, []int64{1, 1, 0}, e.counts("C", metrics.Failure, metrics.Cancelled, metrics.Retry))
			e.assertIdle("C")
		})
	}
}

// A run that panics is a FAILURE like any other, retried; one that calls runtime.Goexit
// unwinds through the retry, whose attempts were all published, permits given back.
func TestRetryOfARunThatPanicsOrGoexits(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	cmd := New(e.retrySetter("P", "2", "execution.isolation.semaphore.maxConcurrentRequests", "1"),
		func(context.Context) (string, error) {
			if calls.Add(1) == 1 {
				panic("boom")
			}
			return "v", nil
		})
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success, metrics.Failure, metrics.Retry), cmd.ExecutionEvents())

	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			key := "G" + iso
			var calls atomic.Int32
			s := e.retrySetter(key, "3", "execution.isolation.strategy", iso, "execution.isolation.semaphore.maxConcurrentRequests", "1")
			cmd := New(s, func(context.Context) (string, error) {
				if calls.Add(1) == 1 {
					return "", errBoom
				}
				runtime.Goexit()
				return "", nil
			}).WithFallback(fallbackValue("fb"))
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = cmd.Execute(context.Background())
			}()
			<-done
			if iso == "THREAD" {
				e.waitPoolIdle(key)
				assert.Equal(t, int32(3), calls.Load(), "a pool goroutine's Goexit is a FAILURE, retried")
			} else {
				assert.Equal(t, int32(2), calls.Load(), "the caller's goroutine is gone")
			}
			assert.True(t, cmd.IsFailedExecution())
			assert.Equal(t, []int64{int64(calls.Load()), int64(calls.Load() - 1)}, e.counts(key, metrics.Failure, metrics.Retry))
			e.assertIdle(key)
			v, err := New(s, value("next")).Execute(context.Background())
			require.NoError(t, err, "the permit came back")
			assert.Equal(t, "next", v)
		})
	}
}

// By default the attempts share the execution timeout from the first start; with
// retry.timeoutPerAttempt each has all of it.
func TestRetryTimeoutOverallOrPerAttempt(t *testing.T) {
	for _, perAttempt := range []string{"false", "true"} {
		t.Run("perAttempt="+perAttempt, func(t *testing.T) {
			e := newEnv(t)
			s := e.retrySetter("T", "3", "retry.timeoutPerAttempt", perAttempt,
				"execution.isolation.thread.timeoutInMilliseconds", "100")
			var calls atomic.Int32
			cmd := New(s, func(context.Context) (string, error) {
				if calls.Add(1) == 1 {
					e.clk.Advance(60 * time.Millisecond)
					return "", errBoom
				}
				e.clk.Advance(50 * time.Millisecond)
				return "v", nil
			}).WithFallback(fallbackValue("fb"))
			got, err := cmd.Execute(context.Background())
			require.NoError(t, err)
			if perAttempt == "true" {
				assert.Equal(t, "v", got)
				assert.Equal(t, ev(metrics.Success, metrics.Failure, metrics.Retry), cmd.ExecutionEvents())
			} else {
				assert.Equal(t, "fb", got, "40 ms were left for the second attempt")
				assert.Equal(t, ev(metrics.Failure, metrics.Timeout, metrics.FallbackSuccess, metrics.Retry), cmd.ExecutionEvents())
			}
			e.assertIdle("T")
		})
	}
}

func TestRetryOnTimeout(t *testing.T) {
	e := newEnv(t)
	s := e.retrySetter("OT", "2", "retry.onTimeout", "true", "retry.timeoutPerAttempt", "true",
		"execution.isolation.thread.timeoutInMilliseconds", "100")
	var calls atomic.Int32
	cmd := New(s, func(context.Context) (string, error) {
		if calls.Add(1) == 1 {
			e.clk.Advance(150 * time.Millisecond)
		}
		return "v", nil
	})
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success, metrics.Timeout, metrics.Retry), cmd.ExecutionEvents())

	s = e.retrySetter("NOT", "2", "execution.isolation.thread.timeoutInMilliseconds", "100")
	calls.Store(0)
	cmd = New(s, func(context.Context) (string, error) {
		calls.Add(1)
		e.clk.Advance(150 * time.Millisecond)
		return "v", nil
	})
	_, err = cmd.Execute(context.Background())
	runtimeErr(t, err, Timeout)
	assert.Equal(t, int32(1), calls.Load(), "a TIMEOUT is not retried by default")
}

func TestRetryBudgetExhausted(t *testing.T) {
	e := newEnv(t)
	s := e.retrySetter("BE", "3", "budget.percent", "0", "budget.minPerSecond", "0")
	run, calls := failingTimes(100, "")
	cmd := New(s, run).WithFallback(fallbackValue("fb"))
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess, metrics.BudgetExhausted), cmd.ExecutionEvents())
	assert.Equal(t, []int64{1, 0, 1}, e.counts("BE", metrics.Failure, metrics.Retry, metrics.BudgetExhausted))
	assert.Equal(t, metrics.NewHealthCounts(1, 1), e.rt.Metrics().Command("BE").HealthCounts(), "BUDGET_EXHAUSTED says nothing of health")
}

// Flat out from many goroutines on keys sharing a budget group: the retries never exceed
// the budget (20 % of the originals of the last second, at least budget.minPerSecond).
func TestRetryBudgetHoldsUnderContention(t *testing.T) {
	e := newEnv(t)
	var runs, originals atomic.Int64
	run := func(context.Context) (string, error) { runs.Add(1); return "", errBoom }
	var wg sync.WaitGroup
	for g := range 8 {
		s := e.retrySetter([]string{"BudA", "BudB"}[g%2], "3", "circuitBreaker.enabled", "false",
			"execution.isolation.semaphore.maxConcurrentRequests", "100", "budget.group", "shared",
			"budget.minPerSecond", "1")
		wg.Go(func() {
			for range 2000 {
				originals.Add(1)
				_, _ = New(s, run).Execute(context.Background())
			}
		})
	}
	wg.Wait()
	extras := runs.Load() - originals.Load()
	allowed := max(originals.Load()*20/100, 10)
	assert.LessOrEqual(t, extras, allowed)
	assert.Greater(t, extras, allowed*9/10, "the budget is used")
	retries := e.counts("BudA", metrics.Retry)[0] + e.counts("BudB", metrics.Retry)[0]
	assert.Equal(t, extras, retries, "each extra attempt a RETRY")
}

func TestRetryOffIsNotInTheChain(t *testing.T) {
	e := newEnv(t)
	_, _ = New(e.setter("Off"), value("v")).Execute(context.Background())
	for l := e.key("Off").chain.Load().chain; l != nil; l = l.next {
		_, isRetry := l.wrap.(retry)
		assert.False(t, isRetry)
	}
	e.src.Set("hystrix.command.Off.retry.backoffInMilliseconds", "0")
	e.src.Set("hystrix.command.Off.retry.maxAttempts", "2")
	run, calls := failingTimes(1, "v")
	got, err := New(e.setter("Off"), run).Execute(context.Background())
	require.NoError(t, err, "switched on live")
	assert.Equal(t, "v", got)
	assert.Equal(t, int32(2), calls.Load())
}

// A stream is retried while it has emitted nothing, never after its first value: its
// subscriber has that value already.
func TestRetryOfAStreamStopsAtItsFirstValue(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	props := Setter{Runtime: e.rt, CommandKey: "RS", Properties: map[string]string{
		"retry.maxAttempts": "3", "retry.backoffInMilliseconds": "0"}}
	st := NewStream[any](props, func(context.Context) rxgo.Observable {
		if calls.Add(1) == 1 {
			return rxgo.Just(errBoom)()
		}
		return rxgo.Just(1, 2)()
	})
	values, errs := items(t, st.ToObservable())
	assert.Equal(t, []any{1, 2}, values)
	assert.Empty(t, errs)
	assert.Equal(t, int32(2), calls.Load())
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Success, metrics.Failure, metrics.Retry), st.ExecutionEvents())

	calls.Store(0)
	props.CommandKey = "RS2"
	st = NewStream[any](props, func(context.Context) rxgo.Observable {
		calls.Add(1)
		return rxgo.Just(1, errBoom)()
	})
	values, errs = items(t, st.ToObservable())
	assert.Equal(t, []any{1}, values)
	assert.Len(t, errs, 1)
	assert.Equal(t, int32(1), calls.Load(), "it emitted: no retry")
	e.assertIdle("RS")
	e.assertIdle("RS2")
}

// Under THREAD isolation an attempt that timed out is abandoned on its pool goroutine
// (its context interrupted) while the retry runs; its late end changes nothing and its
// permit comes back.
func TestRetryOnTimeoutOnAPool(t *testing.T) {
	e := newEnv(t)
	s := e.retrySetter("TP", "2", "execution.isolation.strategy", "THREAD", "retry.onTimeout", "true",
		"retry.timeoutPerAttempt", "true", "execution.isolation.thread.timeoutInMilliseconds", "100")
	s.ThreadPoolKey = "TPPool"
	started := make(chan struct{})
	var calls atomic.Int32
	cmd := New(s, func(ctx context.Context) (string, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-ctx.Done() // interrupted at the timeout
			return "late", ctx.Err()
		}
		return "second", nil
	})
	out := make(chan string, 1)
	go func() {
		got, err := cmd.Execute(context.Background())
		assert.NoError(t, err)
		out <- got
	}()
	<-started
	e.clk.Advance(100 * time.Millisecond)
	assert.Equal(t, "second", <-out)
	assert.Equal(t, ev(metrics.Success, metrics.Timeout, metrics.Retry), cmd.ExecutionEvents())
	e.waitPoolIdle("TP")
	assert.Equal(t, []int64{1, 1, 1}, e.counts("TP", metrics.Timeout, metrics.Success, metrics.Retry))
	e.assertIdle("TP")
	e.assertNoDeadlines("TP")
}

// A key's own budget goes with the key when it is evicted for idleness; a group's stays.
func TestRetryBudgetIsForgottenWithItsKey(t *testing.T) {
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore()), WithMetricsOptions(metrics.WithIdleTimeout(time.Second)))
	defer rt.Close()
	for _, key := range []string{"Own", "Grouped"} {
		props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE", "retry.maxAttempts": "2",
			"retry.backoffInMilliseconds": "0"}
		if key == "Grouped" {
			props["budget.group"] = "g"
		}
		_, _ = New(Setter{Runtime: rt, CommandKey: key, Properties: props}, value("v")).Execute(context.Background())
	}
	budgets := func() (n int) {
		rt.shared.mu.Lock()
		defer rt.shared.mu.Unlock()
		for k := range rt.shared.m {
			if _, ok := k.(budgetKey); ok {
				n++
			}
		}
		return n
	}
	require.Equal(t, 2, budgets())
	for range 8 { // past every window and the idle timeout
		clk.Advance(10 * time.Second)
	}
	rt.Metrics().Flush()
	require.Empty(t, rt.Metrics().Commands())
	assert.Equal(t, 1, budgets(), "the group's budget stays")
}

// The retry stage holds the budget of the key's properties as they are: a change of the
// budget's settings gives the key a fresh budget at its next execution, a change of
// another property keeps the one it has, and the keys of a budget group with the same
// properties share one budget and one chain.
func TestRetryBudgetFollowsThePropertiesAsTheyChange(t *testing.T) {
	e := newEnv(t)
	s := e.retrySetter("BL", "2", "budget.percent", "0", "budget.minPerSecond", "0")
	retries := func() int64 {
		run, _ := failingTimes(1, "v")
		_, _ = New(s, run).WithFallback(fallbackValue("fb")).Execute(context.Background())
		return e.counts("BL", metrics.Retry)[0]
	}
	require.Zero(t, retries(), "an empty budget: no retry")
	before := e.key("BL").currentChain()
	e.src.Set("hystrix.command.BL.budget.minPerSecond", "100")
	assert.EqualValues(t, 1, retries(), "the new settings' budget allows retries")
	assert.NotSame(t, before, e.key("BL").currentChain(), "a chain with the new budget")
	kept := retryOf(e.key("BL").currentChain()).b
	e.src.Set("hystrix.command.BL.execution.isolation.thread.timeoutInMilliseconds", "2000")
	assert.EqualValues(t, 2, retries())
	require.NotNil(t, kept)
	assert.Same(t, kept, retryOf(e.key("BL").currentChain()).b, "another property changed: the key keeps its budget")

	for _, key := range []string{"GA", "GB"} {
		_, err := New(e.retrySetter(key, "2", "budget.group", "g"), value("v")).Execute(context.Background())
		require.NoError(t, err)
	}
	assert.Same(t, e.key("GA").currentChain(), e.key("GB").currentChain(), "a group's keys share their chain")
}

// retryOf returns the retry stage of chain c (the zero retry when it has none).
func retryOf(c *link) retry {
	for l := c; l != nil; l = l.next {
		if r, ok := l.wrap.(retry); ok {
			return r
		}
	}
	return retry{}
}
