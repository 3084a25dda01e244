package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

// CommandMetrics are the metrics of one command key: health counts for the circuit
// breaker, rolling and cumulative event counts, latency distributions and concurrency.
// Get one from Registry.Command; all methods are safe for concurrent use.
type CommandMetrics struct {
	s                 *series
	percentileEnabled *config.Property[bool]

	healthSnap atomic.Pointer[HealthCounts]

	healthMu  sync.Mutex // guards gen, listeners and the delivery of snapshots
	gen       uint64     // bumped by ResetHealthCounts
	listeners []healthListener
	nextID    uint64
	hw        healthWindow // roll goroutine only (gen read under healthMu)
}

type healthListener struct {
	id uint64
	f  func(HealthCounts)
}

var zeroHealth = &HealthCounts{}

// Key returns the command key.
func (m *CommandMetrics) Key() string { return m.s.key }

// MarkStart records that run is starting: the live concurrency grows by one and the
// rolling maximum sees the new value. Call it exactly for the executions whose result
// will carry WithExecuted, so that MarkComplete ends what MarkStart began.
func (m *CommandMetrics) MarkStart() { m.s.markStart() }

// MarkComplete publishes the outcome of one execution to the metrics stream. It never
// blocks and does not allocate. If res.Executed() the live concurrency drops by one and
// both latencies join the rolling distributions (when metrics.rollingPercentile.enabled).
// Call it once per execution, cache hits and short-circuits included.
func (m *CommandMetrics) MarkComplete(res ExecutionResult) {
	ev := event{kind: evCommand, counts: res.events, a: -1, b: -1}
	if res.executed {
		m.s.current.Add(-1)
		if m.percentileEnabled.Get() {
			ev.a, ev.b = int64(res.executionLatency), int64(res.totalLatency)
		}
	}
	m.s.publish(ev)
}

// HealthCounts returns the latest health snapshot: the sums over the last
// rollingStats window of closed healthSnapshot buckets. It is one atomic load.
func (m *CommandMetrics) HealthCounts() HealthCounts { return *m.healthSnap.Load() }

// OnHealthCounts registers f to receive every new health snapshot, one per
// healthSnapshot interval while the key has anything in its window. f runs on the
// metrics goroutine with the key's health lock held: it must be quick and must not call
// ResetHealthCounts of the same key (nor wait for anything that does). cancel removes f.
func (m *CommandMetrics) OnHealthCounts(f func(HealthCounts)) (cancel func()) {
	m.healthMu.Lock()
	m.nextID++
	id := m.nextID
	m.listeners = append(m.listeners, healthListener{id: id, f: f})
	m.healthMu.Unlock()
	return func() {
		m.healthMu.Lock()
		defer m.healthMu.Unlock()
		for i, l := range m.listeners {
			if l.id == id {
				m.listeners = append(m.listeners[:i:i], m.listeners[i+1:]...)
				return
			}
		}
	}
}

// ResetHealthCounts starts a fresh health window (the breaker calls it when it closes):
// HealthCounts reads zero at once and every later snapshot counts only buckets closed
// after the reset. It waits for a snapshot being delivered to finish, so call it before
// the breaker's state becomes CLOSED: then no snapshot of the old window can reach a
// closed breaker.
func (m *CommandMetrics) ResetHealthCounts() {
	m.healthMu.Lock()
	m.gen++
	m.healthSnap.Store(zeroHealth)
	m.healthMu.Unlock()
}

// rollHealth closes the health bucket ending at end, if it does, then publishes and
// delivers the snapshot (roll goroutine).
func (m *CommandMetrics) rollHealth(end int64) {
	if end%m.hw.per != 0 {
		return
	}
	m.healthMu.Lock()
	defer m.healthMu.Unlock()
	if m.hw.gen != m.gen {
		m.hw.clear()
		m.hw.gen = m.gen
	}
	h := m.hw.roll()
	if cur := m.healthSnap.Load(); *cur != h {
		if h == (HealthCounts{}) {
			m.healthSnap.Store(zeroHealth)
		} else {
			m.healthSnap.Store(&h)
		}
	}
	for _, l := range m.listeners {
		l.f(h)
	}
}

// RollingCount returns the number of events of type e in the rollingStats window
// (closed buckets). EXCEPTION_THROWN is derived; COMMAND_MAX_ACTIVE returns
// RollingMaxConcurrency.
func (m *CommandMetrics) RollingCount(e EventType) int64 {
	if e == CommandMaxActive {
		return m.RollingMaxConcurrency()
	}
	if int(e) >= NumEventTypes {
		return 0
	}
	return m.s.rolling[e].Load()
}

// CumulativeCount returns the number of events of type e since the key's metrics were
// created (closed ticks of the stream; exact).
func (m *CommandMetrics) CumulativeCount(e EventType) int64 {
	if int(e) >= NumEventTypes {
		return 0
	}
	return m.s.cumulative[e].Load()
}

// RollingMaxConcurrency returns the highest concurrency seen by MarkStart in the
// rollingStats window.
func (m *CommandMetrics) RollingMaxConcurrency() int64 { return m.s.rollingMax.Load() }

// CurrentConcurrency returns the executions started and not yet completed (live).
func (m *CommandMetrics) CurrentConcurrency() int64 { return m.s.current.Load() }

// ExecutionLatencyPercentile returns the p-th percentile (0..100) of the run latency of
// executions in the rollingPercentile window (closed buckets), within 1% relative
// accuracy; 0 when none. The dashboard percentiles (0, 25, 50, 75, 90, 95, 99, 99.5, 100)
// are precomputed once per window roll; any other p merges the window's sketches.
func (m *CommandMetrics) ExecutionLatencyPercentile(p float64) time.Duration {
	return time.Duration(m.s.dist.view.Load().percentile(0, p))
}

// TotalLatencyPercentile is ExecutionLatencyPercentile for the total latency.
func (m *CommandMetrics) TotalLatencyPercentile(p float64) time.Duration {
	return time.Duration(m.s.dist.view.Load().percentile(1, p))
}

// ExecutionLatencyMean returns the exact mean run latency in the rollingPercentile window.
func (m *CommandMetrics) ExecutionLatencyMean() time.Duration {
	return time.Duration(m.s.dist.view.Load().mean(0))
}

// TotalLatencyMean returns the exact mean total latency in the rollingPercentile window.
func (m *CommandMetrics) TotalLatencyMean() time.Duration {
	return time.Duration(m.s.dist.view.Load().mean(1))
}
