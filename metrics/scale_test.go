package metrics

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// settledGoroutines returns the goroutines alive once those that were ending have ended
// (a timer's callback may still be returning after the clock advanced), waiting at most
// five seconds, on a busy machine, for the count to come down to want.
func settledGoroutines(want int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	return n
}

// scaleRun drives keys command keys for d of fake time: every key completes perSec
// executions that ran (lognormal latency around 20ms, sigma 0.5) per second, some of them
// failures, so every health, stats and percentile bucket of every key has data. It returns the heap
// bytes per key before and after reading every key's percentiles, and the goroutines
// before and after (settledGoroutines).
func scaleRun(t testing.TB, keys int, d time.Duration, perSec int) (perKey, perKeyRead float64, goroutines [2]int) {
	base := heapInUse()
	e := newEnv(t)
	goroutines[0] = runtime.NumGoroutine()
	ms := make([]*CommandMetrics, keys)
	for i := range ms {
		// CommandFor: measure the metrics alone (config's per-key properties are not ours)
		ms[i] = e.r.CommandFor(fmt.Sprintf("key-%05d", i), nil)
	}
	rnd := rand.New(rand.NewSource(1))
	for s := 0; s < int(d/time.Second); s++ {
		for j := range perSec {
			for i, m := range ms {
				lat := time.Duration(float64(20*time.Millisecond) * math.Exp(rnd.NormFloat64()*0.5))
				r := result(Success)
				if (i+s+j)%5 == 0 {
					r = result(Failure, FallbackSuccess)
				}
				m.MarkStart()
				m.MarkComplete(r.withExecuted(false).withExecutionLatency(lat).WithTotalLatency(lat + time.Millisecond))
			}
		}
		e.advance(time.Second)
	}
	goroutines[1] = settledGoroutines(goroutines[0])
	perKey = float64(heapInUse()-base) / float64(keys)
	for _, m := range ms {
		require.NotZero(t, m.ExecutionLatencyPercentile(50))
		require.NotZero(t, m.TotalLatencyPercentile(99))
		require.NotZero(t, m.HealthCounts().TotalRequests)
	}
	perKeyRead = float64(heapInUse()-base) / float64(keys)
	runtime.KeepAlive(ms)
	return perKey, perKeyRead, goroutines
}

// TestTenThousandKeys: 10,000 keys with traffic in every bucket of every window fit in
// 64 MB of heap, and the registry's goroutines do not grow with the keys.
func TestTenThousandKeys(t *testing.T) {
	keys, d := 10_000, 70*time.Second
	if raceEnabled || testing.Short() {
		keys, d = 500, 12*time.Second // the race detector makes this slow; memory is checked without it
	}
	perKey, perKeyRead, g := scaleRun(t, keys, d, 1)
	t.Logf("%d keys, %v of traffic: %.0f heap bytes/key (%.0f after reading percentiles), total %.1f MB; goroutines %d -> %d",
		keys, d, perKey, perKeyRead, perKey*float64(keys)/1e6, g[0], g[1])
	assert.LessOrEqual(t, g[1], g[0], "goroutines do not grow with keys")
	if !raceEnabled && keys == 10_000 {
		assert.Less(t, perKeyRead*float64(keys), 64e6)
	}
}

// BenchmarkTenThousandKeys reports heap bytes per key and goroutines for 10,000 keys with
// 1 and 20 executions per second each.
func BenchmarkTenThousandKeys(b *testing.B) {
	for _, perSec := range []int{1, 20} {
		b.Run(fmt.Sprintf("%d-per-second", perSec), func(b *testing.B) {
			for b.Loop() {
				perKey, perKeyRead, g := scaleRun(b, 10_000, 70*time.Second, perSec)
				b.ReportMetric(perKey, "heapB/key")
				b.ReportMetric(perKeyRead, "heapB/key-read")
				b.ReportMetric(float64(g[1]), "goroutines")
			}
		})
	}
}
