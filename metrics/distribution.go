package metrics

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
)

// relativeAccuracy is the DDSketch guarantee: every percentile is within 1% of a value
// that was really recorded at that rank.
const relativeAccuracy = 0.01

var (
	sketchMapping = mustMapping()
	// noNegatives is the negative-value store shared by every sketch: durations and batch
	// sizes are never negative, so it stays empty and is only ever read.
	noNegatives store.Store = store.NewDenseStore()
)

func mustMapping() mapping.IndexMapping {
	m, err := mapping.NewCubicallyInterpolatedMapping(relativeAccuracy)
	if err != nil {
		panic(err)
	}
	return m
}

// distBucket is the open bucket of a distribution: up to two sketches (execution and
// total latency; a collapser uses one for batch sizes) with exact sums and counts for the
// means. The sketches use a buffered paginated store: a few samples cost a few words,
// many samples cost 32-bin pages over the range they span (bounded by the clamped range).
type distBucket struct {
	sk  [2]*ddsketch.DDSketch
	sum [2]int64
	n   [2]int64
}

func (b *distBucket) add(i int, v int64) {
	v = min(max(v, 0), maxSample)
	sk := b.sk[i]
	if sk == nil {
		sk = ddsketch.NewDDSketch(sketchMapping, store.NewBufferedPaginatedStore(), noNegatives)
		b.sk[i] = sk
	}
	if v > 0 {
		sk.GetPositiveValueStore().Add(sketchMapping.Index(float64(v))) // in range by the clamp
	} else {
		_ = sk.Add(0)
	}
	b.sum[i] += v
	b.n[i]++
}

// maxSample caps a sample (one hour in nanoseconds) so a store's range stays bounded.
const maxSample = int64(3600e9)

// frozenBucket is a closed bucket: each sketch in DDSketch's compact binary encoding
// (a few bytes per occupied bin), immutable and safe to read from any goroutine.
type frozenBucket struct {
	enc [2][]byte
	sum [2]int64
	n   [2]int64
}

func freeze(b *distBucket) *frozenBucket {
	if b == nil {
		return nil
	}
	f := &frozenBucket{sum: b.sum, n: b.n}
	for i, sk := range b.sk {
		if sk != nil {
			sk.Encode(&f.enc[i], true)
			f.enc[i] = append([]byte(nil), f.enc[i]...) // trim capacity
		}
	}
	return f
}

// distWindow is a rolling distribution over size buckets of per ticks each. The consumer
// goroutine adds to the open bucket under mu; the roll goroutine swaps it out at each
// boundary, freezes it into the ring and publishes an immutable view for readers.
type distWindow struct {
	mu   sync.Mutex
	open *distBucket

	size   int
	per    int64
	ring   []*frozenBucket // owned by the roll goroutine
	head   int
	filled int // non-nil entries in ring
	view   atomic.Pointer[distView]
}

func newDistWindow(size int, per int64) *distWindow {
	return &distWindow{size: size, per: per, ring: make([]*frozenBucket, size)}
}

// add records v0 in sketch 0 and, unless it is negative, v1 in sketch 1 of the open
// bucket (consumer goroutine).
func (w *distWindow) add(v0, v1 int64) {
	w.mu.Lock()
	if w.open == nil {
		w.open = &distBucket{}
	}
	w.open.add(0, v0)
	if v1 >= 0 {
		w.open.add(1, v1)
	}
	w.mu.Unlock()
}

// roll closes the open bucket when end is one of its boundaries (roll goroutine).
func (w *distWindow) roll(end int64) {
	if end%w.per != 0 {
		return
	}
	w.mu.Lock()
	b := w.open
	w.open = nil
	w.mu.Unlock()
	f := freeze(b)
	old := w.ring[w.head]
	if old == nil && f == nil {
		w.head = (w.head + 1) % w.size
		return
	}
	if old != nil {
		w.filled--
	}
	if f != nil {
		w.filled++
	}
	w.ring[w.head] = f
	w.head = (w.head + 1) % w.size
	v := &distView{}
	for _, fb := range w.ring {
		if fb != nil {
			v.buckets = append(v.buckets, fb)
			for i := range fb.sum {
				v.sum[i] += fb.sum[i]
				v.n[i] += fb.n[i]
			}
		}
	}
	if len(v.buckets) == 0 {
		v = nil
	}
	w.view.Store(v)
}

// empty reports whether the window and the open bucket hold nothing (roll goroutine).
func (w *distWindow) empty() bool {
	if w.filled > 0 {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open == nil
}

// distView is the published content of a distWindow: the closed buckets, their exact sums
// and counts, and (computed on first read) the standard percentiles of the merged window.
type distView struct {
	buckets []*frozenBucket
	sum     [2]int64
	n       [2]int64
	once    [2]sync.Once
	table   [2][len(standardPercentiles)]float64
}

// standardPercentiles are the percentiles of the dashboard stream (0, 25, 50, 75, 90, 95,
// 99, 99.5, 100): reading one of them is a table lookup computed once per window roll;
// any other percentile merges the window's buckets on each call.
var standardPercentiles = [...]float64{0, 25, 50, 75, 90, 95, 99, 99.5, 100}

// merged decodes and merges the window's buckets of sketch i into a new sketch.
func (v *distView) merged(i int) *ddsketch.DDSketch {
	sk := ddsketch.NewDDSketch(sketchMapping, store.NewDenseStore(), noNegatives)
	for _, b := range v.buckets {
		if b.enc[i] != nil {
			_ = sk.DecodeAndMergeWith(b.enc[i]) // our own encoding: cannot fail
		}
	}
	return sk
}

// percentile returns the p-th percentile (0..100) of sketch i, 0 when empty.
func (v *distView) percentile(i int, p float64) float64 {
	if v == nil || v.n[i] == 0 {
		return 0
	}
	p = min(max(p, 0), 100)
	v.once[i].Do(func() {
		sk := v.merged(i)
		for j, sp := range standardPercentiles {
			v.table[i][j] = quantile(sk, sp)
		}
	})
	for j, sp := range standardPercentiles {
		if sp == p {
			return v.table[i][j]
		}
	}
	return quantile(v.merged(i), p)
}

func quantile(sk *ddsketch.DDSketch, p float64) float64 {
	q, err := sk.GetValueAtQuantile(p / 100)
	if err != nil || math.IsNaN(q) {
		return 0
	}
	return q
}

// mean returns the exact mean of sketch i, 0 when empty.
func (v *distView) mean(i int) float64 {
	if v == nil || v.n[i] == 0 {
		return 0
	}
	return float64(v.sum[i]) / float64(v.n[i])
}
