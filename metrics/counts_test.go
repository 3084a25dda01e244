package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRollingAndCumulativeCounts(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	m.MarkComplete(result(Emit, Emit, Emit, Success).withEventCount(Emit, 2))
	m.MarkComplete(result(Failure, FallbackEmit, FallbackFailure))
	m.MarkComplete(result(BadRequest))
	m.MarkComplete(result(ShortCircuited, FallbackMissing))
	m.MarkComplete(result(ResponseFromCache, Success))
	m.MarkComplete(result(Success).withEventCount(Collapsed, 7))
	e.advance(900 * time.Millisecond)
	assert.Zero(t, m.RollingCount(Success), "the 1s bucket in progress does not count")
	e.advance(100 * time.Millisecond)

	want := map[EventType]int64{Emit: 5, Success: 3, Failure: 1, FallbackEmit: 1,
		FallbackFailure: 1, BadRequest: 1, ShortCircuited: 1, FallbackMissing: 1,
		ResponseFromCache: 1, Collapsed: 7, ExceptionThrown: 3}
	for _, ev := range AllEventTypes() {
		assert.Equal(t, want[ev], m.RollingCount(ev), "rolling %v", ev)
		assert.Equal(t, want[ev], m.CumulativeCount(ev), "cumulative %v", ev)
	}
	assert.Zero(t, m.RollingCount(EventType(200)))
	assert.Zero(t, m.CumulativeCount(EventType(200)))

	m.MarkComplete(result(Success))
	e.advance(9 * time.Second)
	assert.Equal(t, int64(4), m.RollingCount(Success))
	e.advance(time.Second)
	assert.Equal(t, int64(1), m.RollingCount(Success), "the first second left the 10s window")
	assert.Equal(t, int64(4), m.CumulativeCount(Success), "cumulative counts never age")
	assert.Zero(t, m.RollingCount(Emit))
	assert.Equal(t, int64(5), m.CumulativeCount(Emit))
}

func TestConcurrency(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	for range 3 {
		m.MarkStart()
	}
	assert.Equal(t, int64(3), m.CurrentConcurrency(), "live, no flush needed")
	m.MarkComplete(result(Success).withExecuted(false))
	m.MarkComplete(result(ShortCircuited, FallbackSuccess)) // never started: no change
	assert.Equal(t, int64(2), m.CurrentConcurrency())
	m.MarkStart()
	e.advance(time.Second)
	assert.Equal(t, int64(3), m.RollingMaxConcurrency())
	assert.Equal(t, int64(3), m.RollingCount(CommandMaxActive))
	m.MarkComplete(result(Success).withExecuted(false))
	m.MarkComplete(result(Success).withExecuted(false))
	m.MarkComplete(result(Success).withExecuted(false))
	assert.Zero(t, m.CurrentConcurrency())
	// the concurrency at each tick counts too: 3 was still live at the 1s boundary
	e.advance(10 * time.Second)
	assert.Equal(t, int64(3), m.RollingMaxConcurrency())
	e.advance(time.Second)
	assert.Zero(t, m.RollingMaxConcurrency(), "the maximum ages out with its bucket")
}

// An execution semaphore counting its permits in the concurrency (TryMarkStart) refuses
// at its limit, raises the maximum like MarkStart, and MarkEnd ends its executions,
// whether they ran or not, so MarkComplete leaves the concurrency alone for them.
func TestTryMarkStart(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	assert.True(t, m.TryMarkStart(2))
	assert.True(t, m.TryMarkStart(2))
	assert.False(t, m.TryMarkStart(2), "the limit is in flight")
	assert.Equal(t, int64(2), m.CurrentConcurrency())
	m.MarkStart() // another isolation's execution counts against the limit too
	assert.False(t, m.TryMarkStart(3))
	m.MarkComplete(result(Success).withExecuted(false))
	assert.True(t, m.TryMarkStart(3), "a limit raised meanwhile, or a permit back")
	assert.Equal(t, int64(3), m.CurrentConcurrency())

	m.MarkEnd()
	m.MarkComplete(result(Success).withExecuted(false).WithEndMarked())
	m.MarkEnd()
	m.MarkComplete(result(SemaphoreRejected, FallbackSuccess).WithEndMarked()) // refused inside: never ran
	assert.Equal(t, int64(1), m.CurrentConcurrency())
	e.advance(time.Second)
	assert.Equal(t, int64(3), m.RollingMaxConcurrency())
	m.MarkEnd()
	m.MarkComplete(result(Success).withExecuted(false).WithEndMarked())
	assert.Zero(t, m.CurrentConcurrency())
}

func TestThreadPoolMetrics(t *testing.T) {
	e := newEnv(t)
	p := e.r.ThreadPool("pool")
	assert.Same(t, p, e.r.ThreadPool("pool"))
	assert.Equal(t, "pool", p.Key())
	p.MarkStart()
	p.MarkStart()
	assert.Equal(t, int64(2), p.CurrentActive())
	p.MarkComplete(result(Success).withExecuted(true))
	p.MarkComplete(result(Timeout, FallbackSuccess).withExecuted(true))
	p.MarkComplete(result(ThreadPoolRejected, FallbackSuccess))
	p.MarkComplete(result(ShortCircuited, FallbackSuccess)) // neither
	assert.Zero(t, p.CurrentActive())
	e.advance(time.Second)
	assert.Equal(t, int64(2), p.RollingCount(Executed))
	assert.Equal(t, int64(1), p.RollingCount(Rejected))
	assert.Equal(t, int64(2), p.CumulativeCount(Executed))
	assert.Equal(t, int64(1), p.CumulativeCount(Rejected))
	assert.Zero(t, p.RollingCount(ThreadPoolEventType(9)))
	assert.Zero(t, p.CumulativeCount(ThreadPoolEventType(9)))
	assert.Equal(t, int64(2), p.RollingMaxActive())

	assert.Equal(t, ThreadPoolGauges{}, p.Gauges())
	p.SetGauges(func() ThreadPoolGauges { return ThreadPoolGauges{ActiveCount: 4, CorePoolSize: 10} })
	assert.Equal(t, ThreadPoolGauges{ActiveCount: 4, CorePoolSize: 10}, p.Gauges())
	p.SetGauges(nil)
	assert.Equal(t, ThreadPoolGauges{}, p.Gauges())

	e.advance(10 * time.Second)
	assert.Zero(t, p.RollingCount(Executed))
	assert.Equal(t, int64(2), p.CumulativeCount(Executed))
	assert.Len(t, e.r.ThreadPools(), 1)
}

func TestCollapserMetrics(t *testing.T) {
	e := newEnv(t)
	c := e.r.Collapser("coll")
	assert.Same(t, c, e.r.Collapser("coll"))
	assert.Equal(t, "coll", c.Key())
	for _, size := range []int{1, 2, 3, 4, 10} {
		c.MarkBatch(size)
	}
	c.MarkResponseFromCache()
	c.MarkResponseFromCache()
	e.advance(time.Second)
	assert.Equal(t, int64(5), c.RollingCount(BatchExecuted))
	assert.Equal(t, int64(20), c.RollingCount(AddedToBatch))
	assert.Equal(t, int64(2), c.RollingCount(CollapserResponseFromCache))
	assert.Equal(t, int64(20), c.CumulativeCount(AddedToBatch))
	assert.Zero(t, c.RollingCount(CollapserEventType(9)))
	assert.Zero(t, c.CumulativeCount(CollapserEventType(9)))
	assert.Zero(t, c.BatchSizeMean(), "the 10s percentile bucket is still open")
	e.advance(9 * time.Second)
	assert.InDelta(t, 4.0, c.BatchSizeMean(), 1e-9)
	assert.InEpsilon(t, 3.0, c.BatchSizePercentile(50), 0.016)
	assert.InEpsilon(t, 10.0, c.BatchSizePercentile(100), 0.016)
	assert.InEpsilon(t, 1.0, c.BatchSizePercentile(0), 0.016)
	assert.Len(t, e.r.Collapsers(), 1)
}
