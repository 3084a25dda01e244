package metrics

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// eventKind says what an event on the shared stream means.
type eventKind uint8

const (
	evStart          eventKind = iota // an execution started; a = concurrency after it
	evCommand                         // a command completed; counts, a/b = latencies (-1: none)
	evThreadPool                      // a command on a pool completed; a = executed, b = rejected
	evCollapserBatch                  // a batch ran; a = batch size
	evCollapserCache                  // a collapsed request was served from cache
	evSync                            // a Flush marker
)

// event is the value published on the shared stream: a pointer to the series it belongs
// to (no map lookup on either side) and a summary of what happened. It is a plain value
// (about 56 bytes; 64 with its slot's sequence number, one cache line) so publishing copies
// it into the bus queue and allocates nothing.
type event struct {
	s      *series
	kind   eventKind
	counts EventCounts
	a, b   int64
	marker *marker
}

// marker is a Flush round trip: closed by the consumer when it reaches it.
type marker struct {
	once sync.Once
	ch   chan struct{}
}

func (m *marker) done() { m.once.Do(func() { close(m.ch) }) }

// keyTick is what one series collected during one tick of the shared stream. The consumer
// goroutine fills it; at the tick boundary it travels, inside the tick, to the roll
// goroutine, which folds it into the series' windows and recycles it.
type keyTick struct {
	s       *series
	counts  [NumEventTypes]uint32
	health  healthBucket
	maxConc int32
}

var keyTickPool = sync.Pool{New: func() any { return new(keyTick) }}

// tick is the accumulator of one bucket of the shared stream: the index of the bucket
// (start / resolution) and the series that had events in it.
type tick struct {
	idx     int64
	touched []*keyTick
}

// newTick starts the accumulator of the bucket starting at start (consumer goroutine).
func (r *Registry) newTick(start time.Time) *tick {
	idx := tickIndex(start, r.opts.resolution)
	if r.started.CompareAndSwap(false, true) {
		r.progress(idx) // the first bucket: nothing before it is pending
	}
	return &tick{idx: idx}
}

// tickIndex returns the index of the resolution-aligned bucket holding t.
func tickIndex(t time.Time, res time.Duration) int64 {
	n := t.UnixNano()
	idx := n / int64(res)
	if n%int64(res) < 0 {
		idx--
	}
	return idx
}

// add folds one event into the tick accumulator. It runs on the consumer goroutine for
// every event, in plain Go: a pointer compare, a few adds, and for an execution that ran
// an uncontended lock around two sketch inserts.
func (r *Registry) add(t *tick, ev event) *tick {
	if ev.kind == evSync {
		ev.marker.done()
		return t
	}
	s := ev.s
	kt := s.kt
	if kt == nil || s.ktIdx != t.idx {
		kt = keyTickPool.Get().(*keyTick)
		kt.s = s
		s.kt, s.ktIdx = kt, t.idx
		t.touched = append(t.touched, kt)
	}
	switch ev.kind {
	case evStart:
		kt.maxConc = max(kt.maxConc, int32(min(ev.a, 1<<31-1)))
	case evCommand:
		c := ev.counts
		for m := c.set; m != 0; m &= m - 1 {
			e := EventType(bits.TrailingZeros32(m))
			if e == ExceptionThrown {
				continue // derived below, never taken from the result
			}
			kt.counts[e] += uint32(c.Count(e))
			if e.IsExceptionProducing() {
				kt.counts[ExceptionThrown]++
			}
		}
		total, errs := healthOf(c)
		kt.health.total += total
		kt.health.errs += errs
		if ev.a >= 0 {
			s.dist.add(ev.a, max(ev.b, 0))
		}
	case evThreadPool:
		kt.counts[Executed] += uint32(ev.a)
		kt.counts[Rejected] += uint32(ev.b)
	case evCollapserBatch:
		kt.counts[BatchExecuted]++
		kt.counts[AddedToBatch] += uint32(ev.a)
		if ev.b >= 0 {
			s.dist.add(ev.a, -1)
		}
	case evCollapserCache:
		kt.counts[CollapserResponseFromCache]++
	}
	return t
}

// roll handles one finished tick on the roll goroutine: it folds every touched series'
// counts into its windows, closes the per-key buckets that end at this boundary, publishes
// the new snapshots, retires series whose windows emptied, and evicts idle keys.
func (r *Registry) roll(t *tick) {
	end := t.idx + 1
	for _, kt := range t.touched {
		s := kt.s
		s.fold(kt, t.idx)
		if s.activeAt == 0 {
			r.active = append(r.active, s)
			s.activeAt = len(r.active)
		}
		if s.evicted.Load() {
			r.revive(s)
		}
		*kt = keyTick{}
		keyTickPool.Put(kt)
	}
	for i := 0; i < len(r.active); {
		s := r.active[i]
		s.roll(end)
		if end%s.counts.per == 0 && s.idle() { // windows only empty out at a boundary
			last := r.active[len(r.active)-1]
			r.active[i], last.activeAt = last, i+1
			r.active = r.active[:len(r.active)-1]
			s.activeAt = 0
			continue
		}
		i++
	}
	r.maybeEvict(end)
	r.reportDropped()
	r.progress(end)
}

// series is the state shared by command, thread-pool and collapser metrics of one key.
type series struct {
	key   string
	reg   *Registry
	owner any // the *CommandMetrics, *ThreadPoolMetrics or *CollapserMetrics

	// consumer goroutine only
	kt    *keyTick
	ktIdx int64

	// Written by publishers on every execution: a cache line of their own, so that the
	// consumer reading kt for every event it folds does not take it from them.
	_       [64]byte
	current atomic.Int64 // live concurrency, updated by publishers
	peak    atomic.Int64 // highest concurrency reported since the last tick
	_       [64 - 16]byte

	rolling    []atomic.Int64
	cumulative []atomic.Int64
	rollingMax atomic.Int64
	lastUsed   atomic.Int64 // tick index of the last event
	evicted    atomic.Bool

	// roll goroutine only
	counts   countWindow
	health   *CommandMetrics // non-nil for commands: the owner of the health window
	dist     *distWindow     // nil for thread pools
	activeAt int             // 1 + index in Registry.active; 0 when inactive
}

func newSeries(r *Registry, key string, n, statsSize int, statsPer int64) *series {
	s := &series{key: key, reg: r}
	s.rolling = make([]atomic.Int64, n)
	s.cumulative = make([]atomic.Int64, n)
	s.counts = newCountWindow(n, statsSize, statsPer, s.rolling, &s.rollingMax)
	s.lastUsed.Store(tickIndex(r.clk.Now(), r.opts.resolution))
	return s
}

func (s *series) fold(kt *keyTick, idx int64) {
	s.counts.add(kt.counts[:], kt.maxConc)
	for i := range s.cumulative {
		if c := kt.counts[i]; c != 0 {
			s.cumulative[i].Add(int64(c))
		}
	}
	if s.health != nil {
		s.health.hw.add(kt.health)
	}
	s.lastUsed.Store(idx)
}

func (s *series) roll(end int64) {
	s.counts.roll(end)
	c := s.current.Load()
	s.peak.Store(c)
	s.counts.add(nil, int32(min(c, 1<<31-1))) // the concurrency at the boundary counts too
	if s.health != nil {
		s.health.rollHealth(end)
	}
	if s.dist != nil {
		s.dist.roll(end)
	}
}

func (s *series) idle() bool {
	return s.counts.empty() && (s.health == nil || s.health.hw.empty()) &&
		(s.dist == nil || s.dist.empty())
}

// publish hands an event to the shared stream (never blocks, never allocates).
func (s *series) publish(ev event) {
	ev.s = s
	s.reg.bus.Publish(ev)
}

// markStart counts one more execution in flight. It publishes a start event only when
// the concurrency rises above the peak already reported since the last tick (the roll
// goroutine resets the peak to the live value at every tick and records that value), so
// a key at steady concurrency costs one atomic add and one load per start, no event.
func (s *series) markStart() {
	c := s.current.Add(1)
	for {
		p := s.peak.Load()
		if c <= p {
			return
		}
		if s.peak.CompareAndSwap(p, c) {
			s.publish(event{kind: evStart, a: c})
			return
		}
	}
}

// ticks converts a per-key bucket width to whole ticks of the shared stream (at least 1).
func ticks(d, res time.Duration) int64 {
	n := int64((d + res/2) / res)
	return max(n, 1)
}
