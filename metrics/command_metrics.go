package metrics

import (
	"math/bits"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

// CommandMetrics are the metrics of one command key: health counts for the circuit
// breaker, rolling and cumulative event counts, latency distributions and concurrency.
// Get one from Registry.Command; all methods are safe for concurrent use. The command
// package writes them (MarkStart, MarkComplete) and its breakers follow them
// (OnHealthCounts, ResetHealthCounts); everything else reads. A program that calls the
// writers itself counts executions that never happened.
type CommandMetrics struct {
	s                 *series
	percentileEnabled *config.Property[bool]

	health atomic.Pointer[healthState]

	healthMu  sync.Mutex   // guards hw, listeners, and the delivery and reset of snapshots
	hw        healthWindow // the scan over closed health buckets
	listeners []healthListener
	nextID    uint64

	adaptive atomic.Pointer[func() AdaptiveGauges] // ADAPTIVE isolation's gauges (adaptive_gauges.go)
}

// healthState is a published health snapshot with the health counters it was cut at, so
// that the open bucket can be read exactly (LiveHealthCounts).
type healthState struct {
	HealthCounts
	base healthBucket
}

type healthListener struct {
	id uint64
	f  func(HealthCounts)
}

// windows are the window sizes of a key, read when its metrics are created.
type windows struct {
	stats, pct window
	health     time.Duration
	pctEnabled *config.Property[bool]
}

// defaultWindows are Hystrix's built-in defaults, for keys made without properties.
var defaultWindows = windows{
	stats:      window{width: time.Second, size: 10},
	pct:        window{width: 10 * time.Second, size: 6},
	health:     500 * time.Millisecond,
	pctEnabled: config.Fixed("metrics.rollingPercentile.enabled", true),
}

func (r *Registry) newCommand(key string, p *config.CommandProperties) *CommandMetrics {
	w := defaultWindows
	if p != nil {
		w = windows{
			stats:  windowOf(config.RollingStatsWindow.In(p).Get(), config.RollingStatsBuckets.In(p).Get()),
			pct:    windowOf(config.RollingPercentileWindow.In(p).Get(), config.RollingPercentileBuckets.In(p).Get()),
			health: config.HealthSnapshotInterval.In(p).Get(), pctEnabled: config.RollingPercentileEnabled.In(p),
		}
	}
	m := &CommandMetrics{percentileEnabled: w.pctEnabled}
	// Hystrix's health window: rollingStats time / snapshot interval buckets
	span := w.stats.width * time.Duration(w.stats.size)
	m.hw = newHealthWindow(w.health, max(int(span/w.health), 1))
	m.health.Store(&healthState{})
	s := newSeries(r, key, numSlots, w.stats)
	s.pct = newPctWindow(w.pct.width, w.pct.size, 2)
	s.owner, s.health, m.s = m, m, s
	s.seal()
	return m
}

// Key returns the command key.
func (m *CommandMetrics) Key() string { return m.s.key }

// MarkStart records that run is starting: the live concurrency grows by one and the
// rolling maximum sees the new value. Call it exactly for the executions whose result
// says run executed (NewExecutionResult's executed), so that MarkComplete ends what
// MarkStart began.
func (m *CommandMetrics) MarkStart() { m.s.markStart() }

// TryMarkStart is MarkStart under a limit, the execution semaphore of SEMAPHORE
// isolation: it counts one more execution in flight unless limit are in flight already,
// and reports whether it did. The semaphore's permits are then the key's concurrency, one
// counter where two would pass the same cache line between the cores of concurrent
// callers twice as often. MarkEnd ends what it began; the execution's result says so
// (WithEndMarked), whether run executed or not.
func (m *CommandMetrics) TryMarkStart(limit int64) bool { return m.s.tryMarkStart(limit) }

// MarkEnd ends an execution in flight that TryMarkStart began.
func (m *CommandMetrics) MarkEnd() { m.s.current.Add(-1) }

// MarkComplete folds the outcome of one execution into the key's counters on the calling
// goroutine: a few atomic adds on a stripe of its own, no lock, no allocation, nothing
// that can be dropped. If res.Executed() the live concurrency drops by one and, when
// metrics.rollingPercentile.enabled, both latencies (as given: a timed-out execution
// should carry the time until the timeout fired) join the distributions. Call it once
// per execution, cache hits and short-circuits included. While the registry has
// Completions subscribers it offers them the completion too, without waiting (Feed).
func (m *CommandMetrics) MarkComplete(res ExecutionResult) {
	s := m.s
	i := rand.Uint32() & s.c.mask // the stripe of this call: feeds count misses on theirs
	st := &s.c.stripes[i]
	c := res.events()
	for set := c.set &^ (1<<ExceptionThrown | 1<<CommandMaxActive); set != 0; set &= set - 1 {
		e := EventType(bits.TrailingZeros32(set))
		st.n[e].Add(uint32(c.Count(e)))
	}
	if x := c.set & exceptionMask; x != 0 {
		st.n[ExceptionThrown].Add(uint32(bits.OnesCount32(x)))
	}
	if res.flags&flagExecuted != 0 {
		if res.flags&flagEnded == 0 {
			s.current.Add(-1)
		}
		if m.percentileEnabled.Get() && res.flags&flagCutShort == 0 {
			st.sum[0].Add(uint64(max(res.executionLatency, 0)))
			st.sum[1].Add(uint64(max(res.totalLatency, 0)))
			s.pct.hist[0].record(int64(res.executionLatency))
			s.pct.hist[1].record(int64(res.totalLatency))
		}
	}
	s.touch()
	if l := s.reg.feed.subs.Load(); l != nil {
		l.completed(s, i, &res)
	}
}

// HealthCounts returns the latest health snapshot: the sums over the last
// rollingStats window of closed healthSnapshot buckets. It is one atomic load.
func (m *CommandMetrics) HealthCounts() HealthCounts { return m.health.Load().HealthCounts }

// LiveHealthCounts returns the health counts of the closed window plus the bucket in
// progress, exact up to the completions recorded when it reads the counters: the
// snapshot plus what the counters gained since it was cut. It takes no lock; it reads
// five counters per stripe, so it is meant for failures, not for every call.
func (m *CommandMetrics) LiveHealthCounts() HealthCounts {
	st := m.health.Load()
	now := m.healthCounters()
	return NewHealthCounts(st.TotalRequests+int64(now.total-st.base.total),
		st.ErrorCount+int64(now.errs-st.base.errs))
}

// healthCounters returns the health total and errors over every completion recorded.
func (m *CommandMetrics) healthCounters() healthBucket {
	var ok, errs uint32
	for set := healthyMask | unhealthyMask; set != 0; set &= set - 1 {
		e := bits.TrailingZeros32(set)
		if n := m.s.c.load(e); unhealthyMask&(1<<e) != 0 {
			errs += n
		} else {
			ok += n
		}
	}
	return healthBucket{total: ok + errs, errs: errs}
}

// OnHealthCounts registers f to receive every new health snapshot, one per
// healthSnapshot interval while the key has anything in its windows. f runs on the roll
// with the key's health lock held: it must be quick and must not call
// ResetHealthCounts of the same key, Registry.Flush, or wait for anything that does. A
// panic in f is logged and the other listeners still run. cancel removes f.
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
// HealthCounts reads zero at once and later snapshots count only the bucket in progress
// and buckets closed after the reset. It waits for a snapshot being delivered to finish,
// so call it before the breaker's state becomes CLOSED: then no snapshot of the old
// window can reach a closed breaker.
func (m *CommandMetrics) ResetHealthCounts() {
	m.healthMu.Lock()
	m.hw.clear()
	m.health.Store(&healthState{base: m.health.Load().base})
	m.healthMu.Unlock()
}

// rollHealth cuts the health bucket (what the health counters gained since the last
// snapshot), pushes it into the window after k-1 empty ones, publishes the snapshot and
// delivers it (roll only). It reports whether the bucket held anything.
func (m *CommandMetrics) rollHealth(k int) bool {
	m.healthMu.Lock()
	defer m.healthMu.Unlock()
	st := m.health.Load()
	now := m.healthCounters()
	b := healthBucket{total: now.total - st.base.total, errs: now.errs - st.base.errs}
	h := m.hw.push(k, b)
	if h != st.HealthCounts || now != st.base {
		m.health.Store(&healthState{HealthCounts: h, base: now})
	}
	for _, l := range m.listeners {
		m.s.reg.contain("health listener", func() { l.f(h) })
	}
	return b != healthBucket{}
}

// healthEmpty reports whether the health window holds nothing and nothing was recorded
// since the last snapshot (roll only).
func (m *CommandMetrics) healthEmpty() bool {
	m.healthMu.Lock()
	defer m.healthMu.Unlock()
	return m.hw.total == 0 && m.healthCounters() == m.health.Load().base
}

// RollingCount returns the number of events of type e in the rollingStats window
// (closed buckets). COMMAND_MAX_ACTIVE returns RollingMaxConcurrency.
func (m *CommandMetrics) RollingCount(e EventType) int64 {
	if e == CommandMaxActive {
		return m.RollingMaxConcurrency()
	}
	if int(e) >= numSlots {
		return 0
	}
	return m.s.stats.rolling[e].Load()
}

// CumulativeCount returns the number of events of type e since the key's metrics were
// created, up to the last closed rollingStats bucket. It is exact: every completion is
// counted.
func (m *CommandMetrics) CumulativeCount(e EventType) int64 {
	if int(e) >= numSlots {
		return 0
	}
	return m.s.stats.cumulative[e].Load()
}

// RollingMaxConcurrency returns the highest concurrency seen by MarkStart and
// TryMarkStart in the rollingStats window.
func (m *CommandMetrics) RollingMaxConcurrency() int64 { return m.s.stats.max.Load() }

// CurrentConcurrency returns the executions started and not yet completed (live): under
// SEMAPHORE isolation, the execution semaphore's permits in use (TryMarkStart).
func (m *CommandMetrics) CurrentConcurrency() int64 { return m.s.current.Load() }

// ExecutionLatencyPercentile returns the p-th percentile (0..100) of the run latency of
// executions in the rollingPercentile window (closed buckets), within 1.6 % of a latency
// really recorded at that rank; 0 when none. The dashboard percentiles (0, 25, 50, 75, 90,
// 95, 99, 99.5, 100) are computed once per window roll; any other p merges the window.
func (m *CommandMetrics) ExecutionLatencyPercentile(p float64) time.Duration {
	return time.Duration(m.s.pct.view.Load().percentile(0, p))
}

// TotalLatencyPercentile is ExecutionLatencyPercentile for the total latency.
func (m *CommandMetrics) TotalLatencyPercentile(p float64) time.Duration {
	return time.Duration(m.s.pct.view.Load().percentile(1, p))
}

// ExecutionLatencyMean returns the exact mean run latency in the rollingPercentile window.
func (m *CommandMetrics) ExecutionLatencyMean() time.Duration {
	return time.Duration(m.s.pct.view.Load().mean(0))
}

// TotalLatencyMean returns the exact mean total latency in the rollingPercentile window.
func (m *CommandMetrics) TotalLatencyMean() time.Duration {
	return time.Duration(m.s.pct.view.Load().mean(1))
}
