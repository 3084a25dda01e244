package budget

import (
	"sync"
	"sync/atomic"
	"time"
)

// window and buckets are the ratio budget's rolling window: buckets buckets of
// window/buckets each. The window is short so that the budget is a share of the traffic
// of now, as Envoy's is of the requests active now: the healthy traffic before an outage
// pays for at most a second of its retries, not for almost all of them.
const (
	window  = time.Second
	buckets = 10
	width   = window / buckets
)

// ratio is the Envoy-style budget: over the rolling window, the extra attempts are at most
// percent of the original requests, or minPerSecond when that is larger.
type ratio struct {
	percent int64
	floor   int64 // minPerSecond over the window

	spent atomic.Int64 // the extra attempts in the window: the sum of the buckets' extras
	slot  atomic.Int64 // the current bucket's index since the clock's origin (now/width)
	roll  sync.Mutex   // serialises rolling buckets out (once per bucket width at most)
	b     [buckets]bucket
}

type bucket struct {
	originals atomic.Int64
	extras    atomic.Int64
}

// NewRatio returns a ratio budget of percent (0 to 100 and beyond) with at least
// minPerSecond extra attempts a second.
func NewRatio(percent, minPerSecond int) Budget { return newRatio(percent, minPerSecond) }

func newRatio(percent, minPerSecond int) *ratio {
	return &ratio{percent: int64(percent), floor: int64(minPerSecond) * int64(window) / int64(time.Second)}
}

// Original implements Budget.
func (r *ratio) Original(now time.Duration) {
	r.bucket(now).originals.Add(1)
}

// Withdraw implements Budget: it takes an extra attempt if the window's extras stay within
// the larger of percent of its originals and the minimum.
func (r *ratio) Withdraw(now time.Duration) bool {
	b := r.bucket(now)
	var originals int64
	for i := range r.b {
		originals += r.b[i].originals.Load()
	}
	allowed := max(originals*r.percent/100, r.floor)
	for {
		s := r.spent.Load()
		if s >= allowed {
			return false
		}
		if r.spent.CompareAndSwap(s, s+1) {
			b.extras.Add(1)
			return true
		}
	}
}

// Outcome implements Budget; the ratio ignores outcomes.
func (*ratio) Outcome(bool) {}

// bucket returns the bucket of now, rolling out the buckets that left the window.
func (r *ratio) bucket(now time.Duration) *bucket {
	slot := int64(now / width)
	if cur := r.slot.Load(); slot > cur {
		r.advance(slot)
	}
	return &r.b[slot%buckets]
}

// advance empties the buckets from the current one to slot (at most all of them) and
// makes slot the current one; their extras leave the window's count.
func (r *ratio) advance(slot int64) {
	r.roll.Lock()
	defer r.roll.Unlock()
	cur := r.slot.Load()
	if slot <= cur {
		return
	}
	for s := max(cur+1, slot-buckets+1); s <= slot; s++ {
		b := &r.b[s%buckets]
		b.originals.Store(0)
		r.spent.Add(-b.extras.Swap(0))
	}
	r.slot.Store(slot)
}
