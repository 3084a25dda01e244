package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

// countingClock is a fake clock that counts its readings (Now and Since).
type countingClock struct {
	*clock.Fake
	reads atomic.Int64
}

func (c *countingClock) Now() time.Time { c.reads.Add(1); return c.Fake.Now() }

func (c *countingClock) Since(t time.Time) time.Duration { c.reads.Add(1); return c.Fake.Since(t) }

// advanceUncounted advances the clock without counting what the timers it fires read (the
// metrics roll).
func (c *countingClock) advanceUncounted(d time.Duration) {
	n := c.reads.Load()
	c.Fake.Advance(d)
	c.reads.Store(n)
}

// readsPer returns how many times the clock was read per call of f, over n calls, after
// as many calls to warm up (a key's metrics activation and its deadline timers are read
// once per key and period, not per execution).
func (c *countingClock) readsPer(n int, f func()) float64 {
	for range n {
		f()
	}
	before := c.reads.Load()
	for range n {
		f()
	}
	return float64(c.reads.Load()-before) / float64(n)
}

// TestClockReadsPerExecution pins how many times an execution reads the runtime's clock
// on the SEMAPHORE paths without hooks (THREAD the same, unless its pool has a queue: then
// the worker's start too) (doc.go, "Cost"): at most twice, the start and the
// run's end, which is also the terminal time (a fallback's time is not counted); the
// timeout is armed from the start, and a lazy deadline joins its queue without a read; a
// short circuit reads only the breaker's sleep window, a forced one nothing.
func TestClockReadsPerExecution(t *testing.T) {
	clk := &countingClock{Fake: clock.NewFake(epoch)}
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore(config.DefaultSource())))
	defer rt.Close()
	setter := func(key string, kv ...string) Setter {
		props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}
		for i := 0; i+1 < len(kv); i += 2 {
			props[kv[i]] = kv[i+1]
		}
		return Setter{Runtime: rt, CommandKey: key, Properties: props}
	}
	ctx := context.Background()
	watching := func(ctx context.Context) (string, error) {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		default:
			return "v", ctx.Err()
		}
	}
	slow := func(context.Context) (string, error) {
		clk.advanceUncounted(2 * time.Second) // past the timeout: the clock decides at the run's end
		return "late", nil
	}

	open := setter("open", "circuitBreaker.requestVolumeThreshold", "1",
		"circuitBreaker.sleepWindowInMilliseconds", "3600000",
		"metrics.healthSnapshot.intervalInMilliseconds", "100")
	_, _ = New(open, failing(errBoom)).WithFallback(fallbackValue("fb")).Execute(ctx)
	rt.Metrics().Flush()
	clk.Advance(200 * time.Millisecond)
	rt.Metrics().Flush()
	cmd := New(open, value("v")).WithFallback(fallbackValue("fb"))
	_, _ = cmd.Execute(ctx)
	require.True(t, cmd.IsResponseShortCircuited(), "the breaker opened")

	for _, tc := range []struct {
		name string
		want float64
		s    Setter
		run  func(context.Context) (string, error)
	}{
		{"success", 2, setter("success"), value("v")},
		{"success, run watching ctx (Done and Err)", 2, setter("watching"), watching},
		{"failure with fallback (its time is the total latency's)", 3, setter("failure"), failing(errBoom)},
		{"timeout decided at the run's end, fallback", 3, setter("timeout", "circuitBreaker.enabled", "false"), slow},
		{"short circuit with fallback", 1, open, value("v")},
		{"forced short circuit with fallback", 0, setter("forced", "circuitBreaker.forceOpen", "true"), value("v")},
		{"THREAD success", 2, setter("thread", "execution.isolation.strategy", "THREAD"), value("v")},
	} {
		s := tc.s
		got := clk.readsPer(100, func() {
			_, err := New(s, tc.run).WithFallback(fallbackValue("fb")).Execute(ctx)
			assert.NoError(t, err, tc.name)
		})
		assert.Equal(t, tc.want, got, tc.name)
	}

	kind, err := Define[string](setter("kind"))
	require.NoError(t, err)
	kind = kind.WithFallback(fallbackValue("fb"))
	for name, tc := range map[string]struct {
		want float64
		run  func(context.Context) (string, error)
	}{
		"success": {2, value("v")}, "success, run watching ctx": {2, watching}, "failure with fallback": {3, failing(errBoom)},
	} {
		assert.Equal(t, tc.want, clk.readsPer(100, func() { _, _ = kind.ExecutePooled(ctx, tc.run) }), "Kind.ExecutePooled, %s", name)
	}
	thread, err := Define[string](setter("kind-thread", "execution.isolation.strategy", "THREAD"))
	require.NoError(t, err)
	assert.Equal(t, 2.0, clk.readsPer(100, func() { _, _ = thread.ExecutePooled(ctx, value("v")) }), "Kind.ExecutePooled, THREAD success")
	queued, err := Define[string](Setter{Runtime: rt, CommandKey: "kind-queued", ThreadPoolKey: "queued",
		Properties:           config.Overrides{"execution.isolation.strategy": "THREAD"},
		ThreadPoolProperties: config.ThreadPoolOverrides{"maxQueueSize": "10"}})
	require.NoError(t, err)
	assert.Equal(t, 3.0, clk.readsPer(100, func() { _, _ = queued.ExecutePooled(ctx, value("v")) }),
		"Kind.ExecutePooled, THREAD success on a pool with a queue (the worker's start: queue wait is not execution latency)")
	plain, err := Define[string](setter("plain"))
	require.NoError(t, err)
	assert.Equal(t, 2.0, clk.readsPer(100, func() { _, _ = plain.ExecutePooled(ctx, failing(errBoom)) }), "Kind.ExecutePooled, failure without fallback")
}

// The total latency is the caller's: the fallback's time is in it, as in Hystrix's
// (the execution latency is the run's alone).
func TestTotalLatencyCountsTheFallbacksTime(t *testing.T) {
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore(config.DefaultSource())))
	defer rt.Close()
	s := Setter{Runtime: rt, CommandKey: "slowFallback", Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}}
	cmd := New(s, func(context.Context) (string, error) {
		clk.Advance(10 * time.Millisecond)
		return "", errBoom
	}).WithFallback(func(context.Context, error) (string, error) {
		clk.Advance(30 * time.Millisecond)
		return "fb", nil
	})
	v, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", v)
	assert.Equal(t, 10*time.Millisecond, cmd.ExecutionLatency())
	assert.Equal(t, 40*time.Millisecond, cmd.TotalLatency())
}
