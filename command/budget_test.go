//go:build !race

package command_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestTenThousandKeysBudget checks what command keys cost end to end at scale (without
// the race detector, which changes both time and memory): creating the 10,000th key costs
// about what the 100th did, a key with traffic in every bucket of its windows holds at
// most 7,100 B of heap (4.8 KB with Hystrix's events and properties; 6,721 B with those
// of the rate limiter, fault injection, retry, hedge, budget, ADAPTIVE isolation and stream
// phases: the 29th event type took each counter stripe from one pair of cache lines to
// two, 512 B a key on 2 cores; 6,988 B before graded throttling's four properties, 7,088 B
// with them, 25 B each), and evicting every key gives back the heap and the goroutines.
func TestTenThousandKeysBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s")
	}
	const keys = 10_000
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("Key%05d", i)
	}
	goroutines := runtime.NumGoroutine()
	before := heapAlloc()
	clk := clock.NewFake(time.Unix(1_700_000_000, 0))
	rt := command.NewRuntime(command.WithClock(clk), command.WithMetricsOptions(metrics.WithIdleTimeout(time.Minute)))
	defer rt.Close()
	run := func(context.Context) (int, error) { return 1, nil }
	execute := func(name string) {
		s := command.Setter{Runtime: rt, CommandKey: name, Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}}
		_, err := command.New(s, run).Execute(context.Background())
		require.NoError(t, err)
	}

	// The first execution of each key creates it. Compare the median creation time of keys
	// 100-1,099 with that of the last thousand (medians: a GC cycle lands on a few keys).
	created := make([]time.Duration, keys)
	for i, name := range names {
		start := time.Now()
		execute(name)
		created[i] = time.Since(start)
	}
	early, late := median(created[100:1100]), median(created[keys-1000:])
	t.Logf("creating a key (median): %v around the 100th, %v around the 10,000th", early, late)
	assert.Less(t, late, 2*early, "creating the 10,000th key costs about what the 100th did")

	for range 70 { // a minute of traffic: every health, stats and percentile bucket has data
		clk.Advance(time.Second)
		for _, name := range names {
			execute(name)
		}
	}
	rt.Metrics().Flush()
	perKey := float64(heapAlloc()-before) / keys
	t.Logf("heap per key: %.0f B", perKey)
	assert.LessOrEqual(t, perKey, 7100.0)

	for range 3 { // windows empty, then idle for the timeout: every key is evicted
		clk.Advance(time.Minute)
	}
	rt.Metrics().Flush() // waits for the eviction sweep, which runs beside the roll
	require.Empty(t, rt.Metrics().Commands())
	left := int64(heapAlloc()) - int64(before)
	t.Logf("heap left after eviction: %d B (%.1f B per key)", left, float64(left)/keys)
	assert.Less(t, left, int64(keys*100), "evicted keys give their heap back")
	assert.LessOrEqual(t, goroutinesAfter(5*time.Second, goroutines), goroutines)
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
