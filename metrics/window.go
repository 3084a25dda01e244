package metrics

import "sync/atomic"

// countWindow is the rolling count of n event types over size buckets of per ticks each,
// plus the rolling maximum of one gauge (concurrency). It is owned by the roll goroutine;
// readers see the sums through the atomics it updates.
//
// The ring has size+1 slots: cur is the bucket being filled, the other size slots are the
// closed buckets that the rolling sums cover (as in Hystrix, the bucket in progress does
// not count yet).
type countWindow struct {
	n    int
	size int
	per  int64
	ring []uint32 // (size+1)*n
	maxs []int32  // size+1
	cur  int
	sums []atomic.Int64 // n rolling sums, read by any goroutine
	max  *atomic.Int64  // rolling maximum, read by any goroutine
}

func newCountWindow(n, size int, per int64, sums []atomic.Int64, max *atomic.Int64) countWindow {
	return countWindow{
		n: n, size: size, per: per,
		ring: make([]uint32, (size+1)*n),
		maxs: make([]int32, size+1),
		sums: sums, max: max,
	}
}

// add folds one tick's counts (nil: none) and maximum into the bucket in progress.
func (w *countWindow) add(counts []uint32, maxv int32) {
	if counts != nil {
		b := w.ring[w.cur*w.n : (w.cur+1)*w.n]
		for i, c := range counts[:w.n] {
			b[i] += c
		}
	}
	w.maxs[w.cur] = max(w.maxs[w.cur], maxv)
}

// roll closes the bucket in progress when end (a tick index) is one of its boundaries.
func (w *countWindow) roll(end int64) {
	if end%w.per != 0 {
		return
	}
	closing := w.ring[w.cur*w.n : (w.cur+1)*w.n]
	next := (w.cur + 1) % (w.size + 1)
	oldest := w.ring[next*w.n : (next+1)*w.n]
	for i := range closing {
		if d := int64(closing[i]) - int64(oldest[i]); d != 0 {
			w.sums[i].Add(d)
		}
		oldest[i] = 0
	}
	w.maxs[next] = 0
	w.cur = next
	var m int32
	for i, v := range w.maxs {
		if i != w.cur {
			m = max(m, v)
		}
	}
	w.max.Store(int64(m))
}

// empty reports whether no bucket, the one in progress included, holds anything. The
// rolling sums cover the closed buckets (counts are never negative), so it reads n sums,
// one bucket and size+1 maxima, not the whole ring.
func (w *countWindow) empty() bool {
	for i := range w.sums {
		if w.sums[i].Load() != 0 {
			return false
		}
	}
	for _, v := range w.ring[w.cur*w.n : (w.cur+1)*w.n] {
		if v != 0 {
			return false
		}
	}
	for _, v := range w.maxs {
		if v != 0 {
			return false
		}
	}
	return true
}

// healthBucket is the health contribution of some executions.
type healthBucket struct{ total, errs uint32 }

// healthWindow is the rolling health of one command over size buckets of per ticks each.
// Owned by the roll goroutine; the snapshot it produces is published by CommandMetrics.
type healthWindow struct {
	size       int
	per        int64
	ring       []healthBucket // size+1 slots, cur in progress
	cur        int
	total, err int64
	gen        uint64 // reset generation folded in
}

func newHealthWindow(size int, per int64) healthWindow {
	return healthWindow{size: size, per: per, ring: make([]healthBucket, size+1)}
}

func (w *healthWindow) add(h healthBucket) {
	w.ring[w.cur].total += h.total
	w.ring[w.cur].errs += h.errs
}

// roll closes the bucket in progress (the caller checked the boundary) and returns the
// rolling sums of the closed buckets.
func (w *healthWindow) roll() HealthCounts {
	next := (w.cur + 1) % (w.size + 1)
	w.total += int64(w.ring[w.cur].total) - int64(w.ring[next].total)
	w.err += int64(w.ring[w.cur].errs) - int64(w.ring[next].errs)
	w.ring[next] = healthBucket{}
	w.cur = next
	return NewHealthCounts(w.total, w.err)
}

// clear forgets the closed buckets (a breaker reset); the bucket in progress stays.
func (w *healthWindow) clear() {
	for i := range w.ring {
		if i != w.cur {
			w.ring[i] = healthBucket{}
		}
	}
	w.total, w.err = 0, 0
}

func (w *healthWindow) empty() bool {
	return w.total == 0 && w.err == 0 && w.ring[w.cur] == (healthBucket{})
}
