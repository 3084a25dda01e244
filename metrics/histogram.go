package metrics

import (
	"iter"
	"math/bits"
	"slices"
	"sync/atomic"
)

// The histogram is log-linear (HDR-style): values below 32 have a bin each; above, every
// power of two [2^k, 2^(k+1)) is a row of 32 equal bins, so a bin is at most 1/32 of its
// lower edge wide and the value it reports (its midpoint) is within 2^-6 (1.6 %) of every
// value it holds. Values (nanoseconds, batch sizes) are clamped to maxValue: rows 0..37.
const (
	subBits  = 5
	rowBins  = 1 << subBits
	maxValue = 1<<42 - 1 // about 73 minutes in nanoseconds
)

// row is one power of two of bins; the roller takes its counts with Swap(0).
type row [rowBins]atomic.Uint32

// histogram counts values in bins on the caller, lock-free. Rows are allocated on first
// use: a key whose latencies span two powers of two holds two rows (256 bytes).
type histogram struct {
	t atomic.Pointer[rowTable]
}

// rowTable holds the rows from first on; nil entries are rows never used. A table is
// never changed once published: a new row publishes a new table with the same row
// pointers, so a writer holding the old table still counts into the row the roller reads.
type rowTable struct {
	first int
	rows  []*row
}

// binOf returns the row and bin of v (0 <= v <= maxValue).
func binOf(v uint64) (r, b int) {
	if v < rowBins {
		return 0, int(v)
	}
	shift := bits.Len64(v) - subBits - 1
	return shift + 1, int(v>>shift) & (rowBins - 1)
}

// valueOf returns the value a bin reports: its midpoint (exact below 64).
func valueOf(r, b int) int64 {
	if r == 0 {
		return int64(b)
	}
	w := int64(1) << (r - 1)
	return (rowBins+int64(b))*w + (w-1)/2
}

// record counts one value.
func (h *histogram) record(v int64) {
	r, b := binOf(uint64(min(max(v, 0), maxValue)))
	if t := h.t.Load(); t != nil {
		if i := r - t.first; uint(i) < uint(len(t.rows)) && t.rows[i] != nil {
			t.rows[i][b].Add(1)
			return
		}
	}
	h.grow(r)[b].Add(1)
}

// grow returns row r, publishing a table that has it.
func (h *histogram) grow(r int) *row {
	for {
		old := h.t.Load()
		first, last := r, r
		if old != nil {
			if i := r - old.first; uint(i) < uint(len(old.rows)) && old.rows[i] != nil {
				return old.rows[i]
			}
			first, last = min(first, old.first), max(last, old.first+len(old.rows)-1)
		}
		t := &rowTable{first: first, rows: make([]*row, last-first+1)}
		if old != nil {
			copy(t.rows[old.first-first:], old.rows)
		}
		t.rows[r-first] = new(row)
		if h.t.CompareAndSwap(old, t) {
			return t.rows[r-first]
		}
	}
}

// bins yields the index (row*32 + bin) and counter of every bin of the allocated rows,
// in value order.
func (h *histogram) bins() iter.Seq2[int, *atomic.Uint32] {
	return func(yield func(int, *atomic.Uint32) bool) {
		t := h.t.Load()
		if t == nil {
			return
		}
		for i, rw := range t.rows {
			for b := 0; rw != nil && b < rowBins; b++ {
				if !yield((t.first+i)*rowBins+b, &rw[b]) {
					return
				}
			}
		}
	}
}

// take moves every count out of the histogram (roller only) and appends them to dst as
// bins in value order. A value recorded concurrently is either taken now or stays for the
// next take: each bin is emptied with one atomic Swap.
func (h *histogram) take(dst []bin) []bin {
	for idx, c := range h.bins() {
		if c.Load() != 0 {
			dst = appendBins(dst, idx, c.Swap(0))
		}
	}
	return dst
}

// empty reports whether every bin is zero.
func (h *histogram) empty() bool {
	for _, c := range h.bins() {
		if c.Load() != 0 {
			return false
		}
	}
	return true
}

// bin is one non-empty bin of a closed bucket in 4 bytes: its index (row*32 + bin) in
// the high 12 bits, its count in the low 20. A larger count takes several bins with the
// same index (take splits it; percentiles adds them up).
type bin uint32

const binCount = 1<<20 - 1

func (b bin) index() int    { return int(b >> 20) }
func (b bin) count() uint64 { return uint64(b & binCount) }
func (b bin) value() int64  { return valueOf(b.index()/rowBins, b.index()%rowBins) }

// appendBins appends the count n of the bin at index to dst.
func appendBins(dst []bin, index int, n uint32) []bin {
	idx := bin(index) << 20
	for ; n > binCount; n -= binCount {
		dst = append(dst, idx|binCount)
	}
	return append(dst, idx|bin(n))
}

// standardPercentiles are the percentiles of the dashboard stream: a window computes them
// once per roll, so reading one is a table lookup.
var standardPercentiles = [...]float64{0, 25, 50, 75, 90, 95, 99, 99.5, 100}

// percentiles returns the values at ps (each 0..100, ascending) over bins merged from
// several buckets: the value of the bin holding the sample of rank floor(p/100*(n-1)) in
// value order. n is the number of samples; zero gives zeros. bins is sorted in place.
func percentiles(bins []bin, n uint64, ps []float64, out []int64) {
	if n == 0 {
		clear(out)
		return
	}
	slices.Sort(bins) // by index: the index is the high bits
	var seen uint64
	j := 0
	for i, p := range ps {
		rank := uint64(p / 100 * float64(n-1))
		for j < len(bins)-1 && seen+bins[j].count() <= rank {
			seen += bins[j].count()
			j++
		}
		out[i] = bins[j].value()
	}
}
