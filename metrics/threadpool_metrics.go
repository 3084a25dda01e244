package metrics

import (
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/config"
)

// ThreadPoolGauges are the live gauges of one goroutine pool, as its owner reports them,
// with the meanings java.util.concurrent.ThreadPoolExecutor gives them.
type ThreadPoolGauges struct {
	// ActiveCount is the number of workers running a task.
	ActiveCount int
	// QueueSize is the number of tasks waiting in the queue.
	QueueSize int
	// PoolSize is the number of workers, busy or idle.
	PoolSize int
	// LargestPoolSize is the largest PoolSize the pool has had.
	LargestPoolSize int
	// CorePoolSize is the current coreSize.
	CorePoolSize int
	// MaximumPoolSize is the current effective maximum size.
	MaximumPoolSize int
	// CompletedTaskCount is the number of tasks that finished (panicked ones included).
	CompletedTaskCount int64
	// TaskCount is the number of tasks ever accepted.
	TaskCount int64
}

// ThreadPoolMetrics are the metrics of one thread-pool key: EXECUTED and REJECTED rolling
// and cumulative counts, the rolling maximum of active executions, and the pool's gauges.
// The command package writes them (MarkStart, MarkComplete, SetGauges); everything else
// reads.
type ThreadPoolMetrics struct {
	s      *series
	gauges atomic.Pointer[func() ThreadPoolGauges]
}

func (r *Registry) newThreadPool(key string, p *config.ThreadPoolProperties) *ThreadPoolMetrics {
	stats := defaultWindows.stats
	if p != nil {
		stats = windowOf(config.ThreadPoolRollingStatsWindow.In(p).Get(), config.ThreadPoolRollingStatsBuckets.In(p).Get())
	}
	m := &ThreadPoolMetrics{s: newSeries(r, key, NumThreadPoolEventTypes, stats)}
	m.s.owner = m
	m.s.seal()
	return m
}

// Key returns the thread-pool key.
func (m *ThreadPoolMetrics) Key() string { return m.s.key }

// MarkStart records that a command starts running on a pool goroutine (active + 1).
func (m *ThreadPoolMetrics) MarkStart() { m.s.markStart() }

// MarkComplete folds the outcome of one command of this pool into its counters (call it
// for every completion of a THREAD-isolated command, rejections included): SUCCESS,
// FAILURE, TIMEOUT and BAD_REQUEST count as EXECUTED, THREAD_POOL_REJECTED as REJECTED,
// as in Hystrix.
// If res.ExecutedInThread() it ends the activity MarkStart began.
func (m *ThreadPoolMetrics) MarkComplete(res ExecutionResult) {
	executed, rejected := res.set&poolMasks[Executed] != 0, res.set&poolMasks[Rejected] != 0
	if res.flags&flagInThread != 0 {
		m.s.current.Add(-1)
	}
	if !executed && !rejected {
		return
	}
	st := m.s.c.pick()
	if executed {
		st.n[Executed].Add(1)
	}
	if rejected {
		st.n[Rejected].Add(1)
	}
	m.s.touch()
}

// RollingCount returns the events of type e in the rollingStats window.
func (m *ThreadPoolMetrics) RollingCount(e ThreadPoolEventType) int64 {
	if int(e) >= NumThreadPoolEventTypes {
		return 0
	}
	return m.s.stats.rolling[e].Load()
}

// CumulativeCount returns the events of type e since the key's metrics were created, up
// to the last closed rollingStats bucket.
func (m *ThreadPoolMetrics) CumulativeCount(e ThreadPoolEventType) int64 {
	if int(e) >= NumThreadPoolEventTypes {
		return 0
	}
	return m.s.stats.cumulative[e].Load()
}

// RollingMaxActive returns the highest number of commands running at once on the pool in
// the rollingStats window.
func (m *ThreadPoolMetrics) RollingMaxActive() int64 { return m.s.stats.max.Load() }

// CurrentActive returns the commands running on the pool now, by MarkStart/MarkComplete.
func (m *ThreadPoolMetrics) CurrentActive() int64 { return m.s.current.Load() }

// SetGauges registers the function that reads the pool's live gauges (the command
// package passes one per pool); nil removes it.
func (m *ThreadPoolMetrics) SetGauges(f func() ThreadPoolGauges) {
	if f == nil {
		m.gauges.Store(nil)
		return
	}
	m.gauges.Store(&f)
}

// Gauges returns the pool's live gauges, zero when no gauge function is registered.
func (m *ThreadPoolMetrics) Gauges() ThreadPoolGauges {
	if f := m.gauges.Load(); f != nil {
		return (*f)()
	}
	return ThreadPoolGauges{}
}
