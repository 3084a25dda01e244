package metrics

import (
	"sync/atomic"
	"time"
)

// ring holds the last closed buckets of one window: the state of a scan over the stream
// of closed buckets. push adds the newest and returns the one that left, so a window
// keeps its sums by adding one and subtracting the other.
type ring[B any] struct {
	buckets []B
	next    int
}

func newRing[B any](n int) ring[B] { return ring[B]{buckets: make([]B, n)} }

func (r *ring[B]) push(b B) (left B) {
	left, r.buckets[r.next] = r.buckets[r.next], b
	if r.next++; r.next == len(r.buckets) {
		r.next = 0
	}
	return left
}

// gap is how many empty buckets to push before a bucket closed k boundaries after the
// previous one (the roller came late): at most the whole ring.
func gap(k, size int) int { return min(k-1, size) }

// healthBucket is the health contribution of the executions of one bucket.
type healthBucket struct{ total, errs uint32 }

// healthWindow is the scan behind HealthCounts: the sums of the last size closed health
// buckets (roller only).
type healthWindow struct {
	width       time.Duration
	ring        ring[healthBucket]
	total, errs int64
}

func newHealthWindow(width time.Duration, size int) healthWindow {
	return healthWindow{width: width, ring: newRing[healthBucket](size)}
}

// push closes k boundaries (k-1 empty buckets, then b) and returns the window's counts.
func (w *healthWindow) push(k int, b healthBucket) HealthCounts {
	for range gap(k, len(w.ring.buckets)) {
		w.scan(healthBucket{})
	}
	w.scan(b)
	return NewHealthCounts(w.total, w.errs)
}

func (w *healthWindow) scan(b healthBucket) {
	left := w.ring.push(b)
	w.total += int64(b.total) - int64(left.total)
	w.errs += int64(b.errs) - int64(left.errs)
}

// clear forgets every closed bucket (a reset of the health counts).
func (w *healthWindow) clear() {
	clear(w.ring.buckets)
	w.total, w.errs = 0, 0
}

// statsWindow is the scan behind rolling counts, cumulative counts and the rolling
// maximum concurrency of one key. The ring keeps a column only for the slots the key has
// used (most keys see two to four event types), so a bucket costs 4 bytes per type seen.
// Readers see the sums through atomics; everything else is the roller's.
type statsWindow struct {
	width      time.Duration
	size       int
	col        [numSlots]uint8 // 1 + column of each slot; 0: never seen
	slots      []uint8         // slot of each column
	prev       []uint32        // counters at the last cut, per column
	ring       []uint32        // size buckets of len(slots) counts each
	maxs       ring[int32]     // maximum concurrency per bucket
	next       int
	rolling    []atomic.Int64 // per slot
	cumulative []atomic.Int64 // per slot
	max        atomic.Int64
}

func newStatsWindow(width time.Duration, size, slots int) statsWindow {
	return statsWindow{
		width: width, size: size, maxs: newRing[int32](size),
		rolling: make([]atomic.Int64, slots), cumulative: make([]atomic.Int64, slots),
	}
}

// cut closes k boundaries: k-1 empty buckets, then the bucket holding what the counters
// gained since the last cut and maxConc. It reports whether any counter moved.
func (w *statsWindow) cut(c *counters, k int, maxConc int32) (moved bool) {
	for range gap(k, w.size) {
		w.push(nil, 0)
	}
	var now, delta [numSlots]uint32
	for i := range w.rolling {
		if now[i] = c.load(i); now[i] != 0 && w.col[i] == 0 {
			w.addColumn(i)
		}
	}
	for col, slot := range w.slots {
		delta[col] = now[slot] - w.prev[col]
		w.prev[col] = now[slot]
		moved = moved || delta[col] != 0
	}
	w.push(delta[:len(w.slots)], maxConc)
	return moved
}

// addColumn gives slot a column in the ring (a type the key had not seen before).
func (w *statsWindow) addColumn(slot int) {
	n := len(w.slots)
	ring := make([]uint32, w.size*(n+1))
	for b := range w.size {
		copy(ring[b*(n+1):], w.ring[b*n:(b+1)*n])
	}
	w.ring, w.slots, w.prev = ring, append(w.slots, uint8(slot)), append(w.prev, 0)
	w.col[slot] = uint8(n + 1)
}

// push adds one closed bucket (nil: empty) and updates the sums readers see.
func (w *statsWindow) push(delta []uint32, maxConc int32) {
	n := len(w.slots)
	oldest := w.ring[w.next*n : (w.next+1)*n]
	for col, slot := range w.slots {
		var d uint32
		if delta != nil {
			d = delta[col]
			w.cumulative[slot].Add(int64(d))
		}
		if diff := int64(d) - int64(oldest[col]); diff != 0 {
			w.rolling[slot].Add(diff)
		}
		oldest[col] = d
	}
	if w.next++; w.next == w.size {
		w.next = 0
	}
	w.maxs.push(maxConc)
	var m int32
	for _, v := range w.maxs.buckets {
		m = max(m, v)
	}
	w.max.Store(int64(m))
}

// empty reports whether no closed bucket holds anything and the counters did not move
// since the last cut.
func (w *statsWindow) empty(c *counters) bool {
	if w.max.Load() != 0 {
		return false
	}
	for _, slot := range w.slots {
		if w.rolling[slot].Load() != 0 {
			return false
		}
	}
	return w.settled(c)
}

// settled reports whether the counters are where the last cut left them.
func (w *statsWindow) settled(c *counters) bool {
	for i := range w.rolling {
		var prev uint32
		if col := w.col[i]; col != 0 {
			prev = w.prev[col-1]
		}
		if c.load(i) != prev {
			return false
		}
	}
	return true
}

// pctBucket is a closed percentile bucket: the non-empty bins of each histogram in value
// order (the first histogram's are bins[:split]) and the exact sums for the means.
type pctBucket struct {
	bins  []bin
	split int
	sum   [2]uint64
}

// hist returns the bins of histogram i.
func (b *pctBucket) hist(i int) []bin {
	if i == 0 {
		return b.bins[:b.split]
	}
	return b.bins[b.split:]
}

// pctWindow is the scan behind latency (or batch size) percentiles and means: the last
// size closed buckets of one or two histograms, published as an immutable view.
type pctWindow struct {
	width time.Duration
	hist  []histogram // recorded on the caller
	ring  ring[*pctBucket]
	prev  [2]uint64 // sums at the last cut
	view  atomic.Pointer[pctView]
}

func newPctWindow(width time.Duration, size, hists int) *pctWindow {
	return &pctWindow{width: width, hist: make([]histogram, hists), ring: newRing[*pctBucket](size)}
}

// cut closes k boundaries: k-1 empty buckets, then the bucket holding what the
// histograms and sums gained since the last cut. It reports whether anything was recorded.
// scratch is the roller's buffer.
func (w *pctWindow) cut(c *counters, k int, scratch *[]bin) (moved bool) {
	changed := false
	for range gap(k, len(w.ring.buckets)) {
		changed = w.ring.push(nil) != nil || changed
	}
	bins := (*scratch)[:0]
	var split int
	var sum [2]uint64
	for i := range w.hist {
		bins = w.hist[i].take(bins)
		if i == 0 {
			split = len(bins)
		}
		s := c.loadSum(i)
		sum[i], w.prev[i] = s-w.prev[i], s
		moved = moved || sum[i] != 0
	}
	*scratch = bins
	var closed *pctBucket
	if moved = moved || len(bins) > 0; moved {
		closed = &pctBucket{bins: append([]bin(nil), bins...), split: split, sum: sum}
	}
	if left := w.ring.push(closed); changed || closed != nil || left != nil {
		w.view.Store(w.newView(scratch))
	}
	return moved
}

// newView sums the ring and computes the standard percentiles; nil when the ring is empty.
func (w *pctWindow) newView(scratch *[]bin) *pctView {
	v := &pctView{}
	for _, b := range w.ring.buckets {
		if b != nil {
			v.buckets = append(v.buckets, b)
		}
	}
	if len(v.buckets) == 0 {
		return nil
	}
	for i := range w.hist {
		bins := v.merged(i, (*scratch)[:0])
		*scratch = bins
		for _, b := range v.buckets {
			v.sum[i] += b.sum[i]
		}
		for _, b := range bins {
			v.n[i] += b.count()
		}
		percentiles(bins, v.n[i], standardPercentiles[:], v.table[i][:])
	}
	return v
}

// empty reports whether no closed bucket holds anything and nothing was recorded since
// the last cut.
func (w *pctWindow) empty(c *counters) bool {
	if w.view.Load() != nil {
		return false
	}
	for i := range w.hist {
		if !w.hist[i].empty() || c.loadSum(i) != w.prev[i] {
			return false
		}
	}
	return true
}

// pctView is a published percentile window: its closed buckets, their exact sums and
// sample counts, and the standard percentiles of each histogram.
type pctView struct {
	buckets []*pctBucket
	sum, n  [2]uint64
	table   [2][len(standardPercentiles)]int64
}

// merged appends the bins of histogram i of every bucket to dst.
func (v *pctView) merged(i int, dst []bin) []bin {
	for _, b := range v.buckets {
		dst = append(dst, b.hist(i)...)
	}
	return dst
}

// percentile returns the p-th percentile (clamped to 0..100) of histogram i, 0 when
// empty: a table lookup for the standard percentiles, a merge of the buckets otherwise.
func (v *pctView) percentile(i int, p float64) int64 {
	if v == nil || v.n[i] == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	for j, sp := range standardPercentiles {
		if sp == p {
			return v.table[i][j]
		}
	}
	var out [1]int64
	percentiles(v.merged(i, nil), v.n[i], []float64{p}, out[:])
	return out[0]
}

// mean returns the exact mean of histogram i, 0 when empty.
func (v *pctView) mean(i int) float64 {
	if v == nil || v.n[i] == 0 {
		return 0
	}
	return float64(v.sum[i]) / float64(v.n[i])
}
