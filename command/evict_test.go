package command_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestEvictedThreadPoolsAreClosedAndComeBackFresh: 1,000 THREAD keys with a pool each go
// idle; eviction closes and forgets their pools (their workers exit), and a key that
// comes back runs on a fresh pool.
func TestEvictedThreadPoolsAreClosedAndComeBackFresh(t *testing.T) {
	const keys = 1000
	base := runtime.NumGoroutine()
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	rt := command.NewRuntime(command.WithClock(clk), command.WithMetricsOptions(metrics.WithIdleTimeout(time.Second)))
	defer rt.Close()
	setter := func(i int) command.Setter {
		return command.Setter{Runtime: rt, CommandKey: fmt.Sprintf("T%04d", i), ThreadPoolKey: fmt.Sprintf("P%04d", i),
			Properties: config.Overrides{"execution.isolation.strategy": "THREAD"}}
	}
	execute := func(i int) {
		got, err := command.New(setter(i), func(context.Context) (int, error) { return i, nil }).Execute(context.Background())
		require.NoError(t, err)
		require.Equal(t, i, got)
	}
	for i := range keys {
		execute(i)
	}
	require.Len(t, command.PoolsOf(rt).Pools(), keys)
	// A worker per pool, read from the pools: a goroutine count against base would be one
	// short whenever base counted a goroutine an earlier test left exiting.
	for _, p := range command.PoolsOf(rt).Pools() {
		require.Equal(t, 1, p.Gauges().PoolSize, "a worker per pool")
	}

	for range 8 { // past every window (percentiles: 60 s) and the idle timeout
		clk.Advance(10 * time.Second)
	}
	rt.Metrics().Flush()
	assert.Empty(t, command.PoolsOf(rt).Pools(), "evicted pools are forgotten")
	assert.Empty(t, rt.Metrics().ThreadPools())
	assert.LessOrEqual(t, goroutinesAfter(5*time.Second, base), base, "the workers of evicted pools exit")

	execute(7) // the key and its pool come back
	pools := command.PoolsOf(rt).Pools()
	require.Len(t, pools, 1)
	assert.False(t, pools[0].Closed())
}

// goroutinesAfter polls runtime.NumGoroutine (on this goroutine: assert.Eventually would
// add its own) until it is at most want or limit passed, and returns the last count.
func goroutinesAfter(limit time.Duration, want int) int {
	deadline := time.Now().Add(limit)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}
