package hystrixredis

import (
	"sync/atomic"
	"time"
)

// gcra is the local admission: a token bucket written as GCRA whose rate changes with
// the share (ratelimit.Bucket's rate is fixed). Its state is the theoretical arrival
// time of the next permit, moved by compare-and-swap.
type gcra struct {
	tat      atomic.Int64 // ns on the caller's clock
	interval atomic.Int64 // ns between two permits; never 0
	rescale  atomic.Bool  // the interval shrank: tat's debt was run up in the old one (setRate)
	burst    int64
}

// refuseAll is the interval of a share of 0: no permit at all.
const refuseAll = int64(time.Hour)

func (g *gcra) setRate(perSecond float64) {
	iv := refuseAll
	if perSecond > 0 {
		iv = max(1, min(refuseAll-1, int64(float64(time.Second)/perSecond)))
	}
	if old := g.interval.Swap(iv); iv < old {
		g.rescale.Store(true)
	}
}

func (g *gcra) reserve(now, maxWait int64) (time.Duration, bool) {
	iv := g.interval.Load()
	if iv == refuseAll {
		return time.Duration(refuseAll), false
	}
	if g.rescale.Load() && g.rescale.CompareAndSwap(true, false) {
		// The share went up: the debt was run up in the old, longer interval. Keep what the
		// new one allows at most (a burst and the longest wait), or a small first share
		// would hold the instance back for many seconds. Once per change: callers' clock
		// readings reach the bucket out of order, and a late one must not lower tat.
		g.clamp(now + g.burst*iv + maxWait)
	}
	for {
		tat := g.tat.Load()
		next := max(tat, now) + iv
		wait := max(0, next-g.burst*iv-now)
		if wait > maxWait {
			return time.Duration(wait), false
		}
		if g.tat.CompareAndSwap(tat, next) {
			return time.Duration(wait), true
		}
	}
}

func (g *gcra) cancel() { g.tat.Add(-g.interval.Load()) }

// clamp lowers tat to hi if it is later.
func (g *gcra) clamp(hi int64) {
	for {
		tat := g.tat.Load()
		if tat <= hi || g.tat.CompareAndSwap(tat, hi) {
			return
		}
	}
}
