package metrics

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
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
	e.mem.Apply(map[string]string{
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
	}, nil)
	fast, slow := e.r.Command("Fast"), e.r.Command("Slow")
	pool, coll := e.r.ThreadPool("Fast"), e.r.Collapser("Fast")
	for _, m := range []*CommandMetrics{fast, slow} {
		m.MarkComplete(result(Failure, FallbackSuccess).withExecuted(false).withExecutionLatency(time.Millisecond))
	}
	pool.MarkComplete(result(Success).withExecuted(true))
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

// TestHealthIntervalHonouredDownToOneMillisecond: each key's snapshot interval is its
// own, to the millisecond: the roll wakes at the next boundary due among the active keys.
func TestHealthIntervalHonouredDownToOneMillisecond(t *testing.T) {
	e := newEnv(t)
	e.mem.Set("hystrix.command.Fast.metrics.healthSnapshot.intervalInMilliseconds", "1")
	e.mem.Set("hystrix.command.Mid.metrics.healthSnapshot.intervalInMilliseconds", "5")
	fast, mid, slow := e.r.Command("Fast"), e.r.Command("Mid"), e.r.Command("Slow")
	var snapshots []HealthCounts
	fast.OnHealthCounts(func(h HealthCounts) { snapshots = append(snapshots, h) })
	for _, m := range []*CommandMetrics{fast, mid, slow} {
		m.MarkComplete(result(Failure, FallbackSuccess))
	}
	e.advance(time.Millisecond)
	assert.Equal(t, HealthCounts{1, 1, 100}, fast.HealthCounts(), "1 ms snapshots")
	assert.Zero(t, mid.HealthCounts().TotalRequests)
	e.advance(4 * time.Millisecond)
	assert.Equal(t, HealthCounts{1, 1, 100}, mid.HealthCounts(), "5 ms snapshots")
	assert.Zero(t, slow.HealthCounts().TotalRequests)
	assert.Len(t, snapshots, 5, "one snapshot per millisecond")
	e.advance(495 * time.Millisecond)
	assert.Equal(t, HealthCounts{1, 1, 100}, slow.HealthCounts(), "500 ms snapshots")
	assert.Len(t, snapshots, 500)
}

func TestEviction(t *testing.T) {
	e := newEnv(t, WithIdleTimeout(30*time.Second))
	var mu sync.Mutex
	var evicted []string
	cancel := e.r.OnCommandEvicted(func(m *CommandMetrics) { mu.Lock(); evicted = append(evicted, m.Key()); mu.Unlock() })
	defer cancel()
	var poolsEvicted []*ThreadPoolMetrics
	e.r.OnThreadPoolEvicted(func(m *ThreadPoolMetrics) { mu.Lock(); poolsEvicted = append(poolsEvicted, m); mu.Unlock() })
	old := e.r.Command("dyn")
	busy := e.r.Command("busy")
	pool, coll := e.r.ThreadPool("p"), e.r.Collapser("c")
	old.MarkComplete(result(Success))
	pool.MarkStart()
	pool.MarkComplete(result(Success).withExecuted(true))
	coll.MarkBatch(1)
	busy.MarkStart() // in flight: never evicted
	e.advance(60 * time.Second)
	assert.Equal(t, int64(1), old.CumulativeCount(Success))

	e.advance(30 * time.Second)
	mu.Lock()
	assert.Equal(t, []string{"dyn"}, evicted)
	assert.Equal(t, []*ThreadPoolMetrics{pool}, poolsEvicted)
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
	p.MarkComplete(result(Success).withExecuted(true))
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
}

// TestEvictionNeverHoldsUpTheRoll: eviction listeners run on the sweep, not on the roll:
// while one is stuck, live keys still get every snapshot.
func TestEvictionNeverHoldsUpTheRoll(t *testing.T) {
	e := newEnv(t, WithIdleTimeout(time.Second))
	e.r.Command("idle")
	release := make(chan struct{})
	stuck := make(chan struct{})
	e.r.OnCommandEvicted(func(m *CommandMetrics) {
		if m.Key() != "idle" {
			t.Errorf("%s was evicted, but it has a completion in its window", m.Key())
			return
		}
		close(stuck)
		<-release
	})
	e.mem.Set("hystrix.command.live.metrics.healthSnapshot.intervalInMilliseconds", "1")
	live := e.r.Command("live")
	live.MarkComplete(result(Success)) // in its 10 s window: not idle
	e.clk.Advance(2 * time.Second)     // a sweep evicts "idle" and blocks in the listener
	<-stuck
	for i := range 5 {
		live.MarkComplete(result(Success))
		e.clk.Advance(time.Millisecond)
		assert.Equal(t, int64(i+2), live.HealthCounts().TotalRequests)
	}
	close(release)
	e.r.Flush()
}

// TestEvictedKeysAreUnreachable: once evicted, nothing the registry holds (maps, groups,
// the roll's buffers) keeps a key's metrics alive.
func TestEvictedKeysAreUnreachable(t *testing.T) {
	e := newEnv(t, WithIdleTimeout(time.Second))
	var refs []weak.Pointer[CommandMetrics]
	for i := range 100 {
		m := e.r.Command(fmt.Sprintf("k%d", i))
		m.MarkStart()
		m.MarkComplete(result(Success).withExecuted(false).withExecutionLatency(time.Millisecond))
		refs = append(refs, weak.Make(m))
	}
	e.advance(2 * time.Minute) // past every window and the idle timeout
	require.Empty(t, e.r.Commands())
	runtime.GC()
	for i, r := range refs {
		assert.Nil(t, r.Value(), "key %d is still reachable", i)
	}
}

// lateClock is a fake clock whose timers never fire: every roll is a late one, by Flush.
type lateClock struct{ *clock.Fake }

func (lateClock) AfterFunc(time.Duration, func()) clock.Timer { return lateTimer{} }

type lateTimer struct{}

func (lateTimer) C() <-chan time.Time { return nil }
func (lateTimer) Stop() bool          { return true }

// TestLateRollPutsGainsInTheLastBucket: a roll that comes several boundaries late closes
// the buckets it missed as empty and counts what was recorded in the last one, so
// nothing ages out early.
func TestLateRollPutsGainsInTheLastBucket(t *testing.T) {
	clk := lateClock{clock.NewFake(epoch)}
	r := NewRegistry(config.NewStore(), clk)
	defer r.Close()
	m := r.Command("K")
	m.MarkComplete(result(Failure, FallbackSuccess))
	clk.Advance(2200 * time.Millisecond) // boundaries at 0.5, 1, 1.5 and 2 s passed unrolled
	r.Flush()
	assert.Equal(t, HealthCounts{1, 1, 100}, m.HealthCounts())
	clk.Advance(9300 * time.Millisecond) // 11.5 s: the bucket closed at 2 s is in the 10 s window
	r.Flush()
	assert.Equal(t, HealthCounts{1, 1, 100}, m.HealthCounts())
	clk.Advance(500 * time.Millisecond)
	r.Flush()
	assert.Equal(t, HealthCounts{}, m.HealthCounts(), "aged out 10 s after the bucket it was counted in")
}
