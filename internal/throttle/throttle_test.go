package throttle

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// draws returns a Random that returns vs in turn and counts its calls.
func draws(calls *int, vs ...float64) func() float64 {
	return func() float64 {
		v := vs[*calls%len(vs)]
		*calls++
		return v
	}
}

// record counts n outcomes at now, the first accepts of them accepted.
func record(t *Throttle, now time.Duration, n, accepts int) {
	for i := range n {
		t.Record(now, i < accepts)
	}
}

func TestRefusesWithTheProbabilityOfTheFormula(t *testing.T) {
	var calls int
	th := New(Settings{K: 2, Window: time.Minute, Random: draws(&calls, 6.0/11-1e-9, 7.0/12)})
	record(th, 0, 10, 2)
	// p = (10 - 2 x 2) / (10 + 1) = 6/11: a draw below it refuses, one at it lets through.
	assert.False(t, th.Allow(0))
	assert.Equal(t, counts{Requests: 11, Accepts: 2}, th.counts(0), "the refusal counts as a request: an accept is in the window")
	assert.True(t, th.Allow(0), "p = (11 - 4) / 12 = 7/12 now: a draw at it lets through")
	assert.Equal(t, 2, calls)
	assert.Equal(t, counts{Requests: 11, Accepts: 2}, th.counts(0), "a request let through counts when its outcome is recorded")
}

func TestNoDrawWhileTheAcceptsOutweighTheRequests(t *testing.T) {
	var calls int
	th := New(Settings{K: 2, Window: time.Minute, Random: draws(&calls, 0)})
	record(th, 0, 10, 5) // p = (10 - 10) / 11 = 0
	for range 100 {
		require.True(t, th.Allow(0))
	}
	assert.Zero(t, calls, "a probability of 0 draws nothing")
	th.Record(0, false) // p = (11 - 10) / 12
	assert.False(t, th.Allow(0))
	assert.Equal(t, 1, calls)
}

func TestNothingIsRefusedBelowMinRequests(t *testing.T) {
	var calls int
	th := New(Settings{K: 2, Window: time.Minute, MinRequests: 10, Random: draws(&calls, 0)})
	record(th, 0, 9, 0)
	assert.True(t, th.Allow(0))
	assert.Zero(t, calls)
	th.Record(0, false)
	assert.False(t, th.Allow(0), "p = 10/11 from the 10th request")
}

func TestARefusalCountsOnlyWhileTheWindowHoldsAnAccept(t *testing.T) {
	var calls int
	th := New(Settings{K: 2, Window: time.Minute, Random: draws(&calls, 0)})
	record(th, 0, 4, 0)
	for range 10 {
		require.False(t, th.Allow(0))
	}
	assert.Equal(t, counts{Requests: 4}, th.counts(0), "no accept: the refusals are not counted, p stays 4/5")
	th.Record(0, true)
	require.False(t, th.Allow(0)) // p = (5 - 2) / 6
	assert.Equal(t, counts{Requests: 6, Accepts: 1}, th.counts(0))
}

func TestTheWindowIs64Buckets(t *testing.T) {
	th := New(Settings{K: 2, Window: 64 * time.Second})
	th.Record(0, true)
	th.Record(time.Second, false)
	assert.Equal(t, counts{Requests: 2, Accepts: 1}, th.counts(63*time.Second+999*time.Millisecond))
	assert.Equal(t, counts{Requests: 1}, th.counts(64*time.Second), "bucket 0 aged out")
	th.Record(63*time.Second, true)
	assert.Equal(t, counts{Requests: 2, Accepts: 1}, th.counts(64*time.Second),
		"a time before the newest bucket counts in the newest")
	assert.Equal(t, counts{Requests: 1, Accepts: 1}, th.counts(65*time.Second))
	assert.Equal(t, counts{}, th.counts(65*time.Second+64*time.Second), "a whole window later: empty")
}

// load runs a dependency that accepts up to capacity calls a second (the rest are not
// accepted), offered offered calls a second evenly on a fake clock, behind th from
// from to to; it returns the calls it received, accepted and the time of the last
// refusal (-1 for none).
func load(th *Throttle, from, to time.Duration, offered, capacity int) (received, accepted int, lastRefusal time.Duration) {
	lastRefusal = -1
	step := time.Second / time.Duration(offered)
	used, second := 0, from/time.Second
	for now := from; now < to; now += step {
		if now/time.Second != second {
			used, second = 0, now/time.Second
		}
		if !th.Allow(now) {
			lastRefusal = now
			continue
		}
		received++
		ok := used < capacity
		if ok {
			used++
			accepted++
		}
		th.Record(now, ok)
	}
	return received, accepted, lastRefusal
}

func seeded() func() float64 { return rand.New(rand.NewPCG(1, 2)).Float64 }

// At 3x overload the dependency receives K x what it accepts, and still accepts its
// capacity.
func TestOverloadLetsThroughKTimesTheAccepts(t *testing.T) {
	th := New(Settings{K: 2, Window: 64 * time.Second, MinRequests: 20, Random: seeded()})
	load(th, 0, 2*time.Minute, 300, 100) // to steady state
	received, accepted, _ := load(th, 2*time.Minute, 4*time.Minute, 300, 100)
	t.Logf("over 120 s at 300/s offered, capacity 100/s: received %d, accepted %d", received, accepted)
	assert.InEpsilon(t, 2*120*100, received, 0.05, "K x X")
	assert.Equal(t, 120*100, accepted, "all it can accept")
}

// A dependency failing 30 % of calls at random (below 1 - 1/K) is never throttled.
func TestRandomFailuresBelowTheShareAreNotThrottled(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	th := New(Settings{K: 2, Window: 64 * time.Second, MinRequests: 20, Random: seeded()})
	for now := time.Duration(0); now < 5*time.Minute; now += 10 * time.Millisecond {
		require.True(t, th.Allow(now), "at %v", now)
		th.Record(now, r.Float64() >= 0.3)
	}
}

// After an overload in which the dependency accepted a share a of the window's requests,
// the refusals stop (W / K) ln((1 - a) / ((K - 1) a)) after it recovers (doc.go).
func TestRefusalsStopWhenTheDocSays(t *testing.T) {
	for _, c := range []struct {
		k                 float64
		offered, capacity int
	}{{2, 300, 100}, {2, 400, 100}, {1.5, 300, 100}, {3, 600, 100}} {
		const window = 64 * time.Second
		th := New(Settings{K: c.k, Window: window, MinRequests: 20, Random: seeded()})
		recovery := 3 * window
		load(th, 0, recovery, c.offered, c.capacity)
		n := th.counts(recovery)
		a := float64(n.Accepts) / float64(n.Requests)
		want := time.Duration(float64(window) / c.k * math.Log((1-a)/((c.k-1)*a)))
		_, _, last := load(th, recovery, recovery+2*window, c.offered, c.offered)
		got := last - recovery
		t.Logf("K %v, %d/s offered, capacity %d/s: a = %.3f, refusals stopped after %v, the doc says %v", c.k, c.offered, c.capacity, a, got, want.Round(time.Millisecond))
		assert.InDelta(t, want.Seconds(), got.Seconds(), 2*window.Seconds()/buckets, "within two buckets")
	}
}

// During a total outage only the probes count once the accepts (and the refusals counted
// with them) aged out, so the dependency keeps receiving a trickle, about one in
// sqrt(offered x W) calls a window; once it is back the first accept brings the refusals
// back into the count, and they fade as the accepts grow: within two windows.
func TestAnOutageIsProbedAndItsEndSeen(t *testing.T) {
	const window = 64 * time.Second
	th := New(Settings{K: 2, Window: window, MinRequests: 20, Random: seeded()})
	load(th, 0, window, 300, 300)
	load(th, window, 3*window, 300, 0) // the accepts, then the refusals counted with them, age out
	probes, _, _ := load(th, 3*window, 4*window, 300, 0)
	n := th.counts(4 * window)
	t.Logf("three windows into a total outage: %d probes in %v, counts %+v", probes, window, n)
	assert.Zero(t, n.Accepts)
	assert.InDelta(t, probes, n.Requests, 10, "only the probes count")
	assert.InDelta(t, math.Sqrt(300*window.Seconds()), probes, 20, "R probes a window when R (R + 1) = offered x W")
	_, _, last := load(th, 4*window, 6*window, 300, 300)
	t.Logf("refusals stop %v after the recovery", last-4*window)
	assert.Less(t, last-4*window, 2*window)
}

// Callers on many goroutines, some with a time older than the newest bucket: every
// outcome is counted once.
func TestConcurrentCallersAreCountedExactly(t *testing.T) {
	th := New(Settings{K: 2, Window: 64 * time.Second, MinRequests: math.MaxInt})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				now := time.Duration(i) * time.Millisecond
				require.True(t, th.Allow(now))
				th.Record(now, (i+g)%2 == 0)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, counts{Requests: 8000, Accepts: 4000}, th.counts(time.Second))
}
