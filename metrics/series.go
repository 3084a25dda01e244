package metrics

import (
	"sync/atomic"
	"time"
)

// series is the state shared by the command, thread-pool and collapser metrics of one
// key: counters and concurrency that callers write, and the windows the roller cuts at
// their boundaries. The fields every caller reads come first; 64 bytes further on (no
// cache line holds both) come the ones every caller writes, then the roller's.
type series struct {
	key    string
	reg    *Registry
	owner  any // the *CommandMetrics, *ThreadPoolMetrics or *CollapserMetrics
	c      counters
	pct    *pctWindow      // nil for thread pools
	health *CommandMetrics // nil unless a command

	_       [64]byte
	current atomic.Int64 // executions in flight (callers)
	peak    atomic.Int64 // highest concurrency since the last stats cut (callers, roller)
	active  atomic.Bool  // the roller visits the key (set by callers, cleared by the roller)
	evicted atomic.Bool  // dropped from the registry (set by a sweep, cleared on revival)

	lastEvent atomic.Int64 // Unix ns of the last boundary that closed a non-empty bucket
	stats     statsWindow

	// roller only: the groups (one per distinct window width) the key is in, and when it
	// last became active (written before the roller takes it from the pending list)
	widths    []time.Duration
	members   [3]membership
	activated int64
}

// membership is where a series sits in one group's key list; g is nil outside it.
type membership struct {
	g  *group
	at int
}

func newSeries(r *Registry, key string, slots int, stats window) *series {
	s := &series{key: key, reg: r, c: newCounters()}
	s.stats = newStatsWindow(stats.width, stats.size, slots)
	s.lastEvent.Store(r.clk.Now().UnixNano())
	return s
}

// window is the width and bucket count of one rolling window.
type window struct {
	width time.Duration
	size  int
}

// windowOf returns the window of size buckets spanning total (at least one bucket of at
// least 1 ms; validated properties never need either floor).
func windowOf(total time.Duration, size int) window {
	size = max(size, 1)
	return window{width: max(total/time.Duration(size), time.Millisecond), size: size}
}

// seal records the distinct widths of the key's windows, once they are all set.
func (s *series) seal() {
	add := func(w time.Duration) {
		for _, have := range s.widths {
			if have == w {
				return
			}
		}
		s.widths = append(s.widths, w)
	}
	if s.health != nil {
		add(s.health.hw.width)
	}
	add(s.stats.width)
	if s.pct != nil {
		add(s.pct.width)
	}
}

// touch makes sure the roller visits the key; callers call it after they recorded, so
// that either the roller sees the record or the caller sees the key inactive.
func (s *series) touch() {
	if !s.active.Load() && s.active.CompareAndSwap(false, true) {
		s.reg.activate(s)
	}
}

// markStart counts one more execution in flight and raises the peak.
func (s *series) markStart() {
	s.raisePeak(s.current.Add(1))
	s.touch()
}

// tryMarkStart is markStart unless limit executions are in flight already.
func (s *series) tryMarkStart(limit int64) bool {
	for {
		c := s.current.Load()
		if c >= limit {
			return false
		}
		if s.current.CompareAndSwap(c, c+1) {
			s.raisePeak(c + 1)
			s.touch()
			return true
		}
	}
}

// raisePeak makes the peak at least c.
func (s *series) raisePeak(c int64) {
	for p := s.peak.Load(); c > p; p = s.peak.Load() {
		if s.peak.CompareAndSwap(p, c) {
			return
		}
	}
}

// roll cuts the buckets of the key's windows of width w: k boundaries passed since the
// group's last roll, the last of them at at (Unix ns).
func (s *series) roll(w time.Duration, k int, at int64, scratch *[]bin) {
	moved := false
	if s.health != nil && s.health.hw.width == w {
		moved = s.health.rollHealth(k) || moved
	}
	if s.stats.width == w {
		// the concurrency at the boundary counts in the closing bucket and the next
		cur := s.current.Load()
		peak := max(s.peak.Swap(cur), cur)
		moved = s.stats.cut(&s.c, k, int32(min(peak, 1<<31-1))) || moved
	}
	if s.pct != nil && s.pct.width == w {
		moved = s.pct.cut(&s.c, k, scratch) || moved
	}
	if moved {
		s.lastEvent.Store(at)
	}
	if l := s.reg.feed.subs.Load(); l != nil && s.health != nil {
		l.rolled(s, w, at)
	}
}

// quiet reports whether nothing is in flight, no window holds anything and nothing was
// recorded since the last cuts: the roller may stop visiting the key.
func (s *series) quiet() bool {
	return s.current.Load() == 0 && s.peak.Load() == 0 && s.stats.empty(&s.c) &&
		(s.health == nil || s.health.healthEmpty()) && (s.pct == nil || s.pct.empty(&s.c))
}

// nextBoundary returns the first boundary of the key's windows after now (Unix ns).
func (s *series) nextBoundary(now int64) int64 {
	next := int64(1<<63 - 1)
	for _, w := range s.widths {
		next = min(next, boundaryAfter(now, w))
	}
	return next
}

// boundaryAfter returns the first multiple of w after now (Unix ns): buckets are aligned
// to the clock, so every key with the same width closes its buckets at the same instants.
func boundaryAfter(now int64, w time.Duration) int64 {
	b := now - now%int64(w)
	if b <= now {
		b += int64(w)
	}
	return b
}
