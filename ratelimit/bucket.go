package ratelimit

import (
	"math"
	"sync/atomic"
	"time"
)

// Bucket is the in-memory Limiter: a token bucket of Rate r kept as GCRA. tat is the
// theoretical arrival time of the permit after those granted: each grant moves it one
// interval on (from now, if it lies behind), and a permit is free while tat stays within
// Burst intervals of now. The interval is rounded to the nanosecond: the granted rate is
// off by at most half a nanosecond per permit (300 a second: 1 in 6,600,000).
type Bucket struct {
	tat       atomic.Int64 // ns, on the callers' clock
	interval  int64        // ns between two permits
	tolerance int64        // Burst intervals: how far ahead of now tat may run
}

// NewBucket returns a full bucket granting r, or r's error (see Rate.validate).
func NewBucket(r Rate) (*Bucket, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	b := &Bucket{interval: r.interval()}
	b.tolerance = b.interval * int64(r.Burst)
	b.tat.Store(math.MinInt64 / 2) // long past: full
	return b, nil
}

// Reserve implements Limiter: one compare-and-swap when it grants, none when it refuses.
func (b *Bucket) Reserve(now, maxWait time.Duration) (time.Duration, bool) {
	n := int64(now)
	for {
		t := b.tat.Load()
		next := max(t, n) + b.interval
		wait := next - b.tolerance - n
		if wait > int64(maxWait) {
			return time.Duration(wait), false
		}
		if b.tat.CompareAndSwap(t, next) {
			return time.Duration(max(wait, 0)), true
		}
	}
}

// Cancel implements Limiter: the permit goes back to the bucket.
func (b *Bucket) Cancel(time.Duration) { b.tat.Add(-b.interval) }

var _ Limiter = (*Bucket)(nil)
