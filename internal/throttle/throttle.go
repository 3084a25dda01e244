package throttle

import (
	"math/rand/v2"
	"sync"
	"time"
)

// buckets is the number of buckets of a Throttle's window.
const buckets = 64

// Settings configure a Throttle.
type Settings struct {
	// K is the multiplier: the dependency receives about K times what it accepts (>= 1,
	// as throttle.k; below 1 a healthy dependency would be refused too: New raises it to 1.
	// Google's SRE book suggests 2, and 1.1 for a dependency that should see little more
	// than it accepts).
	K float64
	// Window is how long requests and accepts are counted (> 0), in 64 buckets.
	Window time.Duration
	// MinRequests is the number of requests in the window below which nothing is
	// refused.
	MinRequests int
	// Random returns a uniform number in [0, 1); nil is math/rand/v2.Float64. It is called
	// under the Throttle's lock, only when the probability of a refusal is above 0.
	Random func() float64
}

// counts are the requests and accepts of a Throttle's window.
type counts struct {
	Requests int64 // requests attempted: recorded outcomes, and refusals while Accepts > 0
	Accepts  int64 // requests the dependency accepted
}

// Throttle is the adaptive throttle of one key (see the package doc).
type Throttle struct {
	k      float64
	width  time.Duration // of a bucket
	min    int64
	random func() float64

	mu   sync.Mutex
	head int64           // the index (time / width) of the newest bucket
	ring [buckets]counts // bucket i holds the counts of index i mod buckets
	sum  counts          // the sum of the ring
}

// New returns a Throttle with settings s, its window empty.
func New(s Settings) *Throttle {
	t := &Throttle{k: max(s.K, 1), width: max(s.Window/buckets, 1), min: int64(s.MinRequests), random: s.Random}
	if t.random == nil {
		t.random = rand.Float64
	}
	return t
}

// Allow reports whether a request may go to the dependency at now; false is a refusal,
// which counts as a request while the window holds an accept.
func (t *Throttle) Allow(now time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(now)
	p := t.probability()
	if p <= 0 || t.random() >= p {
		return true
	}
	if t.sum.Accepts > 0 {
		t.ring[t.head%buckets].Requests++
		t.sum.Requests++
	}
	return false
}

// Record counts the outcome at now of a request Allow let through: accepted by the
// dependency, or not.
func (t *Throttle) Record(now time.Duration, accepted bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(now)
	b := &t.ring[t.head%buckets]
	b.Requests++
	t.sum.Requests++
	if accepted {
		b.Accepts++
		t.sum.Accepts++
	}
}

// probability returns the probability of a refusal: max(0, (requests - K x accepts) /
// (requests + 1)), 0 below MinRequests.
func (t *Throttle) probability() float64 {
	r := t.sum.Requests
	if r < t.min {
		return 0
	}
	return (float64(r) - t.k*float64(t.sum.Accepts)) / float64(r+1)
}

// advance makes the bucket of now the newest, clearing those it passes (the oldest of the
// window). A now older than the newest bucket (a caller that read the clock before
// another took the lock) counts in the newest.
func (t *Throttle) advance(now time.Duration) {
	i := int64(now / t.width)
	if i <= t.head {
		return
	}
	if i-t.head >= buckets {
		t.ring, t.sum, t.head = [buckets]counts{}, counts{}, i
		return
	}
	for t.head < i {
		t.head++
		b := &t.ring[t.head%buckets]
		t.sum.Requests -= b.Requests
		t.sum.Accepts -= b.Accepts
		*b = counts{}
	}
}
