package metrics

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommandGetOrCreate(t *testing.T) {
	e := newEnv(t)
	a := e.r.Command("A")
	assert.Same(t, a, e.r.Command("A"))
	assert.Equal(t, "A", a.Key())
	b := e.r.CommandFor("B", nil)
	assert.Same(t, b, e.r.Command("B"))
	keys := []string{}
	for _, m := range e.r.Commands() {
		keys = append(keys, m.Key())
	}
	assert.Equal(t, []string{"A", "B"}, keys)
	empty := e.r.Command("")
	assert.NotNil(t, empty, "an invalid key still gets metrics with default windows")
}

func TestPerKeyWindowSizes(t *testing.T) {
	e := newEnv(t)
	e.mem.SetAll(map[string]string{
		"hystrix.command.Fast.metrics.rollingStats.timeInMilliseconds":          "2000",
		"hystrix.command.Fast.metrics.rollingStats.numBuckets":                  "2",
		"hystrix.command.Fast.metrics.healthSnapshot.intervalInMilliseconds":    "200",
		"hystrix.command.Fast.metrics.rollingPercentile.timeInMilliseconds":     "2000",
		"hystrix.command.Fast.metrics.rollingPercentile.numBuckets":             "2",
		"hystrix.threadpool.Fast.metrics.rollingStats.timeInMilliseconds":       "2000",
		"hystrix.threadpool.Fast.metrics.rollingStats.numBuckets":               "1",
		"hystrix.collapser.Fast.metrics.rollingStats.timeInMilliseconds":        "1000",
		"hystrix.collapser.Fast.metrics.rollingStats.numBuckets":                "1",
		"hystrix.collapser.Fast.metrics.rollingPercentile.timeInMilliseconds":   "1000",
		"hystrix.collapser.Fast.metrics.rollingPercentile.numBuckets":           "1",
		"hystrix.command.default.metrics.healthSnapshot.intervalInMilliseconds": "1000",
	})
	fast, slow := e.r.Command("Fast"), e.r.Command("Slow")
	pool, coll := e.r.ThreadPool("Fast"), e.r.Collapser("Fast")
	for _, m := range []*CommandMetrics{fast, slow} {
		m.MarkComplete(result(Failure, FallbackSuccess).WithExecuted(false).WithExecutionLatency(time.Millisecond))
	}
	pool.MarkComplete(result(Success).WithExecuted(true))
	coll.MarkBatch(3)
	e.advance(200 * time.Millisecond)
	assert.Equal(t, int64(1), fast.HealthCounts().TotalRequests, "200ms snapshots")
	assert.Zero(t, slow.HealthCounts().TotalRequests, "1s snapshots (default for every key)")
	e.advance(800 * time.Millisecond)
	assert.Equal(t, int64(1), slow.HealthCounts().TotalRequests)
	assert.Equal(t, int64(1), fast.ExecutionLatencyMean().Milliseconds(), "1s percentile buckets")
	assert.Equal(t, 3.0, coll.BatchSizeMean())
	e.advance(time.Second)
	assert.Equal(t, int64(1), pool.RollingCount(Executed), "one 2s bucket")
	e.advance(time.Second)
	assert.Zero(t, fast.HealthCounts().TotalRequests, "2s window")
	assert.Zero(t, fast.RollingCount(Failure))
	assert.Zero(t, fast.ExecutionLatencyMean())
	assert.Zero(t, coll.RollingCount(BatchExecuted))
	assert.Equal(t, int64(1), slow.HealthCounts().TotalRequests, "10s window")
	assert.Equal(t, int64(1), slow.RollingCount(Failure))

	// window sizes are read when a key's metrics are created
	e.mem.Set("hystrix.command.Slow.metrics.healthSnapshot.intervalInMilliseconds", "100")
	slow.MarkComplete(result(Success))
	e.advance(100 * time.Millisecond)
	assert.Equal(t, int64(1), slow.HealthCounts().TotalRequests, "still 1s snapshots")
}

func TestResolutionRoundsBucketWidths(t *testing.T) {
	e := newEnv(t, WithResolution(500*time.Millisecond))
	e.mem.Set("hystrix.command.K.metrics.healthSnapshot.intervalInMilliseconds", "100")
	m := e.r.Command("K")
	m.MarkComplete(result(Success))
	e.advance(500 * time.Millisecond)
	assert.Equal(t, int64(1), m.HealthCounts().TotalRequests, "a 100ms interval becomes one 500ms tick")
	assert.Equal(t, int64(5), ticks(2400*time.Millisecond, 500*time.Millisecond))
	assert.Equal(t, int64(1), ticks(time.Millisecond, 500*time.Millisecond))
}

func TestEviction(t *testing.T) {
	e := newEnv(t, WithIdleTimeout(30*time.Second))
	var mu sync.Mutex
	var evicted []string
	cancel := e.r.OnCommandEvicted(func(k string) { mu.Lock(); evicted = append(evicted, k); mu.Unlock() })
	defer cancel()
	old := e.r.Command("dyn")
	busy := e.r.Command("busy")
	pool, coll := e.r.ThreadPool("p"), e.r.Collapser("c")
	old.MarkComplete(result(Success))
	pool.MarkStart()
	pool.MarkComplete(result(Success).WithExecuted(true))
	coll.MarkBatch(1)
	busy.MarkStart() // in flight: never evicted
	e.advance(60 * time.Second)
	assert.Equal(t, int64(1), old.CumulativeCount(Success))

	e.advance(30 * time.Second)
	mu.Lock()
	assert.Equal(t, []string{"dyn"}, evicted)
	mu.Unlock()
	assert.Equal(t, []*CommandMetrics{busy}, e.r.Commands())
	assert.Empty(t, e.r.ThreadPools())
	assert.Empty(t, e.r.Collapsers())

	fresh := e.r.Command("dyn")
	assert.NotSame(t, old, fresh, "back fresh on next use")
	assert.Zero(t, fresh.CumulativeCount(Success))
	assert.NotSame(t, pool, e.r.ThreadPool("p"))
	assert.NotSame(t, coll, e.r.Collapser("c"))
}

func TestEvictedSeriesRevivesWhenUsedAgain(t *testing.T) {
	e := newEnv(t, WithIdleTimeout(10*time.Second))
	m := e.r.Command("k")
	p, c := e.r.ThreadPool("p"), e.r.Collapser("c")
	e.advance(20 * time.Second)
	require.Empty(t, e.r.Commands())
	m.MarkComplete(result(Success)) // a caller kept the pointer
	p.MarkComplete(result(Success).WithExecuted(true))
	c.MarkResponseFromCache()
	e.advance(time.Second)
	assert.Same(t, m, e.r.Command("k"))
	assert.Same(t, p, e.r.ThreadPool("p"))
	assert.Same(t, c, e.r.Collapser("c"))
	assert.Equal(t, int64(1), m.RollingCount(Success))
}

func TestCloseIsIdempotentAndFlushReturnsAfterClose(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	e.r.Close()
	e.r.Close()
	m.MarkComplete(result(Success)) // no-op after Close
	e.clk.Advance(time.Second)
	e.r.Flush()
	assert.Zero(t, m.CumulativeCount(Success))
	assert.Zero(t, e.r.Dropped())
}

// TestPublishConcurrentlyIsExact: several goroutines publish a million events; every
// count is exact and nothing is dropped.
func TestPublishConcurrentlyIsExact(t *testing.T) {
	e := newEnv(t)
	const workers, perWorker = 8, 125_000
	keys := []*CommandMetrics{e.r.Command("a"), e.r.Command("b"), e.r.Command("c")}
	pool := e.r.ThreadPool("p")
	kinds := []ExecutionResult{
		result(Success).WithExecuted(true).WithExecutionLatency(time.Millisecond),
		result(Failure, FallbackSuccess).WithExecuted(true),
		result(ShortCircuited, FallbackMissing),
		result(ThreadPoolRejected, FallbackSuccess),
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				if i%2048 == 0 {
					e.r.roundTrip() // let the consumer catch up: see BenchmarkConsumer
				}
				k := keys[(w+i)%len(keys)]
				r := kinds[i%len(kinds)]
				if r.Executed() {
					k.MarkStart()
				}
				k.MarkComplete(r)
				if i%16 == 0 {
					pool.MarkComplete(r)
				}
			}
		})
	}
	wg.Wait()
	e.advance(time.Second)
	require.Zero(t, e.r.Dropped(), "the consumer keeps up")

	var success, failure, short, rejected, exceptions int64
	for _, k := range keys {
		assert.Zero(t, k.CurrentConcurrency())
		success += k.CumulativeCount(Success)
		failure += k.CumulativeCount(Failure)
		short += k.CumulativeCount(ShortCircuited)
		rejected += k.CumulativeCount(ThreadPoolRejected)
		exceptions += k.CumulativeCount(ExceptionThrown)
		assert.Equal(t, k.CumulativeCount(Success), k.RollingCount(Success))
	}
	const each = workers * perWorker / 4
	assert.Equal(t, []int64{each, each, each, each, each},
		[]int64{success, failure, short, rejected, exceptions})
	// every 16th of each worker's events goes to the pool: i%16==0 -> i%4==0 -> Success
	assert.Equal(t, int64(workers*((perWorker+15)/16)), pool.CumulativeCount(Executed))
	assert.Zero(t, pool.CumulativeCount(Rejected))

	e.advance(500 * time.Millisecond)
	var total int64
	for _, k := range keys {
		total += k.HealthCounts().TotalRequests
	}
	assert.Equal(t, int64(3*each), total, "success, failure and rejection count; short circuits do not")
}
