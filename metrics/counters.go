package metrics

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
)

// Counter slots of a stripe. Commands use one slot per EventType but CommandMaxActive,
// whose slot stays empty (EXCEPTION_THROWN counted on the caller like the others); thread
// pools use Executed and Rejected, collapsers the CollapserEventTypes.
const numSlots = NumEventTypes

// stripe is one share of a key's counters, alone on its pairs of cache lines (an
// adjacent-line prefetcher fetches lines in pairs; one pair holds up to 28 event types),
// so that callers on different stripes never write a line another caller writes. The sums and the common event types share the first line,
// so a completion writes one line. Counters are monotonic: they are only ever added to,
// never reset; a closed bucket is the difference between two reads of their sum. Counts
// are kept modulo 2^32 (a bucket, the difference, never holds 2^32 events of one type);
// sums of latencies (ns) or batch sizes modulo 2^64.
type stripe struct {
	sum [2]atomic.Uint64
	n   [stripeSlots]atomic.Uint32
}

// stripeSlots is numSlots rounded up to fill whole pairs of lines (the slots past
// numSlots unused: a zero-size padding field at the end would add a word of its own).
const stripeSlots = numSlots + (128-(16+numSlots*4)%128)%128/4

// stripeSize is the size of a stripe: its sums and its slots.
const stripeSize = 16 + stripeSlots*4

// maxCounterBytes bounds a key's counters, and so maxStripes their stripes: 8 stripes of
// 256 B while a stripe holds 29 to 60 event types (28 or fewer fit in 128 B, 16 stripes).
const (
	maxCounterBytes = 2048
	maxStripes      = maxCounterBytes / stripeSize
)

// counters are the striped monotonic counters of one key. A caller picks a stripe at
// random per call (math/rand/v2: per-thread state, no lock), so parallel callers rarely
// share a line; a reader sums over the stripes.
type counters struct {
	stripes []stripe
	mask    uint32
}

// newCounters sizes the stripes from GOMAXPROCS: twice as many stripes as processors,
// rounded up to a power of two, at most maxStripes.
func newCounters() counters {
	n := min(1<<bits.Len(uint(2*runtime.GOMAXPROCS(0)-1)), maxStripes)
	return counters{stripes: make([]stripe, n), mask: uint32(n - 1)}
}

// pick returns the stripe for this call.
func (c *counters) pick() *stripe { return &c.stripes[rand.Uint32()&c.mask] }

// load returns the sum over the stripes of slot i.
func (c *counters) load(i int) uint32 {
	var n uint32
	for s := range c.stripes {
		n += c.stripes[s].n[i].Load()
	}
	return n
}

// loadSum returns the sum over the stripes of sum i.
func (c *counters) loadSum(i int) uint64 {
	var n uint64
	for s := range c.stripes {
		n += c.stripes[s].sum[i].Load()
	}
	return n
}
