package command

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// hedgeSetter is a Setter of key hedging once after 10 ms, no execution timeout, plus kv.
func (e *env) hedgeSetter(key string, kv ...string) Setter {
	return e.setter(key, append([]string{"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "10",
		"execution.timeout.enabled", "false"}, kv...)...)
}

// waitCounts waits until key's cumulative counts of es are want (losers count
// themselves on their own goroutines).
func (e *env) waitCounts(key string, want []int64, es ...metrics.EventType) {
	e.t.Helper()
	require.Eventually(e.t, func() bool { return slices.Equal(e.counts(key, es...), want) },
		5*time.Second, time.Millisecond, "counts of %v: %v, want %v", es, e.counts(key, es...), want)
}

// calls numbers the calls of a run and hands each its context.
type calls struct {
	n    atomic.Int32
	ctxs chan context.Context
}

func newCalls() *calls { return &calls{ctxs: make(chan context.Context, 8)} }

// next numbers a call, then hands its context over: a test that has a call's context
// knows its number is taken (numbered after the hand-off, a hedge started meanwhile could
// take number 1 and the test would wait on the winner's context).
func (c *calls) next(ctx context.Context) int32 {
	n := c.n.Add(1)
	c.ctxs <- ctx
	return n
}

// executeAsync runs cmd.Execute on a goroutine and returns where its result arrives.
func executeAsync(ctx context.Context, cmd *Command[string]) <-chan error {
	out := make(chan error, 1)
	go func() {
		_, err := cmd.Execute(ctx)
		out <- err
	}()
	return out
}

func TestHedgeWinsOverASlowFirstAttempt(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) { testHedgeWins(t, iso) })
	}
}

func testHedgeWins(t *testing.T, iso string) {
	e := newEnv(t)
	c := newCalls()
	cmd := New(e.hedgeSetter("H", "execution.isolation.strategy", iso), func(ctx context.Context) (string, error) {
		if c.next(ctx) == 1 {
			<-ctx.Done()
			return "", ctx.Err()
		}
		return "hedge", nil
	}).WithFallback(fallbackValue("fb"))
	res := executeAsync(context.Background(), cmd)
	first := <-c.ctxs
	e.clk.BlockUntil(1)
	e.clk.Advance(10 * time.Millisecond)
	require.NoError(t, <-res)
	assert.Equal(t, "hedge", cmd.value)
	<-first.Done()
	assert.ErrorIs(t, first.Err(), context.Canceled, "the loser's context ends")
	assert.Equal(t, ev(metrics.Success, metrics.Hedge), cmd.ExecutionEvents())
	e.waitCounts("H", []int64{1, 0, 1, 1, 0}, metrics.Success, metrics.Failure, metrics.Hedge, metrics.Cancelled, metrics.FallbackSuccess)
	assert.Equal(t, metrics.NewHealthCounts(1, 0), e.rt.Metrics().Command("H").HealthCounts(), "a cancelled loser says nothing of health")
	e.clk.Advance(time.Minute)
	e.rt.Metrics().Flush()
	assert.Zero(t, e.rt.Metrics().Command("H").ExecutionLatencyPercentile(100),
		"only the winner's latency (0 on the fake clock): the loser's, cut short at 10 ms, joins no distribution")
	if iso == "THREAD" {
		e.waitPoolIdle("H")
	}
	e.assertIdle("H")
}

func TestHedgeNotStartedWhenTheFirstAnswersInTime(t *testing.T) {
	e := newEnv(t)
	c := newCalls()
	s := e.hedgeSetter("N")
	New(s, func(context.Context) (string, error) { return "", nil }).Execute(context.Background()) //nolint:errcheck // makes the key
	pending := e.clk.Pending()
	cmd := New(s, func(ctx context.Context) (string, error) {
		c.next(ctx)
		return "first", nil
	})
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "first", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	assert.Equal(t, pending, e.clk.Pending(), "the hedge's timer is stopped")
	e.clk.Advance(time.Second)
	assert.Equal(t, int32(1), c.n.Load())
	assert.Equal(t, []int64{2, 0}, e.counts("N", metrics.Success, metrics.Hedge))
	e.assertIdle("N")
}

func TestHedgeEveryAttemptFailsFallsBackOnce(t *testing.T) {
	e := newEnv(t)
	c, release := newCalls(), make(chan struct{})
	cmd := New(e.hedgeSetter("F"), func(ctx context.Context) (string, error) {
		if c.next(ctx) == 1 {
			<-release
		}
		return "", errBoom
	}).WithFallback(fallbackValue("fb"))
	res := executeAsync(context.Background(), cmd)
	<-c.ctxs
	e.clk.BlockUntil(1)
	e.clk.Advance(10 * time.Millisecond)
	<-c.ctxs
	close(release)
	require.NoError(t, <-res)
	assert.Equal(t, "fb", cmd.value)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess, metrics.Hedge), cmd.ExecutionEvents())
	assert.ErrorIs(t, cmd.FailedExecutionError(), errBoom)
	assert.Equal(t, 1, e.hookCount("OnFallbackStart"))
	e.waitCounts("F", []int64{2, 1, 1}, metrics.Failure, metrics.Hedge, metrics.FallbackSuccess)
	assert.Equal(t, metrics.NewHealthCounts(2, 2), e.rt.Metrics().Command("F").HealthCounts(), "each attempt told")
	e.assertIdle("F")
}

func TestHedgeBudgetExhausted(t *testing.T) {
	e := newEnv(t)
	c, release := newCalls(), make(chan struct{})
	cmd := New(e.hedgeSetter("BE", "budget.percent", "0", "budget.minPerSecond", "0"), func(ctx context.Context) (string, error) {
		c.next(ctx)
		<-release
		return "first", nil
	})
	res := executeAsync(context.Background(), cmd)
	<-c.ctxs
	e.clk.BlockUntil(1)
	e.clk.Advance(10 * time.Millisecond)
	require.Eventually(t, func() bool { return cmd.has(metrics.BudgetExhausted) }, 5*time.Second, time.Millisecond)
	close(release)
	require.NoError(t, <-res)
	assert.Equal(t, int32(1), c.n.Load(), "no hedge")
	assert.Equal(t, ev(metrics.Success, metrics.BudgetExhausted), cmd.ExecutionEvents())
	assert.Equal(t, []int64{1, 0, 1}, e.counts("BE", metrics.Success, metrics.Hedge, metrics.BudgetExhausted))
	e.assertIdle("BE")
}

func TestHedgeCallerCancelsEveryAttempt(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			c := newCalls()
			cmd := New(e.hedgeSetter("C", "execution.isolation.strategy", iso), func(ctx context.Context) (string, error) {
				c.next(ctx)
				<-ctx.Done()
				return "", ctx.Err()
			}).WithFallback(fallbackValue("fb"))
			ctx, cancel := context.WithCancel(context.Background())
			res := executeAsync(ctx, cmd)
			first := <-c.ctxs
			e.clk.BlockUntil(1)
			e.clk.Advance(10 * time.Millisecond)
			second := <-c.ctxs
			cancel()
			assert.ErrorIs(t, <-res, context.Canceled)
			<-first.Done()
			<-second.Done()
			assert.Equal(t, ev(metrics.Cancelled, metrics.Hedge), cmd.ExecutionEvents())
			e.waitCounts("C", []int64{2, 1, 0, 0}, metrics.Cancelled, metrics.Hedge, metrics.Failure, metrics.FallbackSuccess)
			if iso == "THREAD" {
				e.waitPoolIdle("C")
			}
			e.assertIdle("C")
		})
	}
}

// A run that panics in one attempt and calls runtime.Goexit in the other: each is that
// attempt's FAILURE, the caller's goroutine goes on and the fallback runs once.
func TestHedgePanicAndGoexitInAttempts(t *testing.T) {
	e := newEnv(t)
	c, release := newCalls(), make(chan struct{})
	cmd := New(e.hedgeSetter("P"), func(ctx context.Context) (string, error) {
		if c.next(ctx) == 1 {
			<-release
			runtime.Goexit()
		}
		panic("hedge")
	}).WithFallback(fallbackValue("fb"))
	res := executeAsync(context.Background(), cmd)
	<-c.ctxs
	e.clk.BlockUntil(1)
	e.clk.Advance(10 * time.Millisecond)
	<-c.ctxs
	close(release)
	require.NoError(t, <-res)
	assert.Equal(t, "fb", cmd.value)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess, metrics.Hedge), cmd.ExecutionEvents())
	e.waitCounts("P", []int64{2, 1, 1}, metrics.Failure, metrics.Hedge, metrics.FallbackSuccess)
	e.assertIdle("P")
}

// Flat out from many goroutines, attempts answering, failing, or waiting for their
// context at random while the clock runs: every command answers, every HEDGE is counted
// once, and everything is given back.
func TestHedgeFlatOut(t *testing.T) {
	e := newEnv(t)
	s := e.hedgeSetter("FO", "hedge.maxHedges", "2", "hedge.delayInMilliseconds", "1",
		"budget.percent", "50", "execution.isolation.semaphore.maxConcurrentRequests", "1000",
		"circuitBreaker.enabled", "false")
	stop := e.clk.Run(time.Millisecond, 0)
	var hedges atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				cmd := New(s, func(ctx context.Context) (string, error) {
					switch rand.IntN(4) {
					case 0:
						return "", errBoom
					case 1:
						select {
						case <-ctx.Done():
							return "", ctx.Err()
						case <-time.After(100 * time.Microsecond):
						}
					}
					return "v", nil
				}).WithFallback(fallbackValue("fb"))
				got, err := cmd.Execute(context.Background())
				if !assert.NoError(t, err) || !assert.Contains(t, []string{"v", "fb"}, got) {
					return
				}
				if cmd.has(metrics.Hedge) {
					hedges.Add(1)
				}
			}
		})
	}
	wg.Wait()
	stop()
	require.Eventually(t, func() bool { return e.key("FO").metrics.CurrentConcurrency() == 0 }, 5*time.Second, time.Millisecond)
	m := e.counts("FO", metrics.Hedge)
	assert.GreaterOrEqual(t, m[0], hedges.Load(), "each command's hedges counted")
	assert.LessOrEqual(t, m[0], 2*hedges.Load())
	e.assertIdle("FO")
}

// Inside a retry: a try whose attempts all failed is retried, and the retry records the
// budget's original once.
func TestHedgeInsideARetry(t *testing.T) {
	e := newEnv(t)
	run, calls := failingTimes(1, "second")
	cmd := New(e.hedgeSetter("R", "retry.maxAttempts", "2", "retry.backoffInMilliseconds", "0"), run).
		WithFallback(fallbackValue("fb"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "second", got)
	assert.Equal(t, int32(2), calls.Load(), "the first failed before the hedge's delay: no hedge")
	assert.Equal(t, ev(metrics.Success, metrics.Failure, metrics.Retry), cmd.ExecutionEvents())
	assert.Equal(t, []int64{1, 1, 1, 0}, e.counts("R", metrics.Success, metrics.Failure, metrics.Retry, metrics.Hedge))
	e.assertIdle("R")
}

// A call made WithoutRetry or WithoutHedge runs one attempt at a time.
func TestHedgeNeverForACallMarkedWithout(t *testing.T) {
	for name, mark := range map[string]func(context.Context) context.Context{"WithoutRetry": WithoutRetry, "WithoutHedge": WithoutHedge} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			c, release := newCalls(), make(chan struct{})
			s := e.hedgeSetter("W")
			New(s, func(context.Context) (string, error) { return "", nil }).Execute(context.Background()) //nolint:errcheck // makes the key
			pending := e.clk.Pending()
			cmd := New(s, func(ctx context.Context) (string, error) {
				c.next(ctx)
				<-release
				return "first", nil
			})
			res := executeAsync(mark(context.Background()), cmd)
			<-c.ctxs
			assert.Equal(t, pending, e.clk.Pending(), "no hedge timer")
			e.clk.Advance(time.Second)
			close(release)
			require.NoError(t, <-res)
			assert.Equal(t, int32(1), c.n.Load())
			assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
		})
	}
}
