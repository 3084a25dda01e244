package adaptivelimit

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

const ms = time.Millisecond

// The limiter reads no clock: every test hands it virtual time with Release, the way a
// fake clock would, so nothing here sleeps.

func TestTheLimitGrowsWhileLatencyIsFlat(t *testing.T) {
	for _, alg := range []Algorithm{Gradient2{}, Vegas{}} {
		s := newSim(Settings{Algorithm: alg, InitialLimit: 5, MaxLimit: 60}, 0, constService(10*ms))
		st := s.run(10_000, time.Minute, 1) // 100 calls in flight would be wanted
		assert.Equal(t, 60, s.l.Limit(), "%T: flat latency, calls refused: up to MaxLimit", alg)
		assert.Less(t, st.limits[0], 60, "%T: it grew, from 5", alg)
	}
}

func TestTheLimitDoesNotGrowWhenItIsNotUsed(t *testing.T) {
	for _, alg := range []Algorithm{Gradient2{}, Vegas{}} {
		s := newSim(Settings{Algorithm: alg, InitialLimit: 20}, 0, constService(10*ms))
		st := s.run(100, 60*time.Second, 1) // about 1 call in flight
		assert.Equal(t, 20, s.l.Limit(), "%T", alg)
		assert.Zero(t, st.refused[adaptive.Critical])
	}
}

func TestTheLimitShrinksWhenLatencyRises(t *testing.T) {
	// Vegas moves by log10(limit) a window: it takes longer
	for alg, halved := range map[Algorithm]int{Gradient2{}: 5, Vegas{}: 10} {
		s := newSim(Settings{Algorithm: alg, InitialLimit: 40, MaxLimit: 40}, 0, constService(10*ms))
		s.run(10_000, 5*time.Second, 1)
		require.Equal(t, 40, s.l.Limit())
		s.service = constService(40 * ms) // four times the baseline, whatever the limit
		st := s.run(10_000, 20*time.Second, 1)
		assert.LessOrEqual(t, st.limits[halved-1], 20, "%T: halved within %d s: %v", alg, halved, st.limits)
		assert.LessOrEqual(t, s.l.Limit(), 10, "%T: %v", alg, st.limits)
	}
}

func TestDropsBackTheLimitOff(t *testing.T) {
	l := NewLimiter(Settings{InitialLimit: 50, Window: 100 * ms, MinSamples: 1})
	now := time.Duration(0)
	for range 10 { // ten windows of one dropped call each
		require.NoError(t, l.TryAcquire(adaptive.Critical))
		now += 100 * ms
		l.Release(now, 10*ms, Dropped)
	}
	// the first release opens the first window: nine windows closed, each x 0.9
	assert.Equal(t, 19, l.Limit(), "50 x 0.9^9")
}

func TestIgnoredCallsTeachNothing(t *testing.T) {
	l := NewLimiter(Settings{InitialLimit: 50, Window: 100 * ms, MinSamples: 1})
	for i := range 100 {
		require.NoError(t, l.TryAcquire(adaptive.Critical))
		l.Release(time.Duration(i)*100*ms, time.Second, Ignored)
	}
	assert.Equal(t, 50, l.Limit())
	assert.Zero(t, l.Inflight())
}

// Under a load of twice, then three times the capacity of a dependency (4 workers,
// exponential service time of mean 10 ms), and after the capacity halves, the limit
// settles within 5 s, and the dependency is kept busy without a queue that builds latency.
func TestTheLimitSettles(t *testing.T) {
	for _, alg := range []Algorithm{Gradient2{}, Vegas{}} {
		s := newSim(Settings{Algorithm: alg}, 4, expService(10*ms))
		unloaded := s.run(200, 20*time.Second, 1)
		p99 := quantile(unloaded.latencies, 0.99)
		for i, rate := range []float64{800, 1200, 800} {
			if i == 2 {
				s.workers = 2
			}
			st := s.run(rate, 20*time.Second, 1)
			capacity := float64(100 * s.workers)
			settled := median(st.limits[5:])
			for sec, lim := range st.limits[5:] {
				assert.InDelta(t, settled, lim, max(1, 0.1*float64(settled)), "%T at %v/s, second %d: %v", alg, rate, sec+5, st.limits)
			}
			assert.GreaterOrEqual(t, float64(st.admitted[adaptive.Critical])/20, 0.9*capacity, "%T at %v/s: goodput", alg, rate)
			assert.LessOrEqual(t, quantile(st.latencies, 0.99), 2*p99, "%T at %v/s: admitted p99 within twice the unloaded", alg, rate)
			assert.Less(t, settled, 4*s.workers, "%T at %v/s: no more than a short queue in the dependency", alg, rate)
		}
	}
}

// A limiter that starts under overload learns the latency without queueing from its first
// windows, when it starts low (the default): it settles as it does after a step.
func TestAColdStartUnderOverloadSettles(t *testing.T) {
	for _, alg := range []Algorithm{Gradient2{}, Vegas{}} {
		unloaded := newSim(Settings{Algorithm: alg}, 4, expService(10*ms)).run(200, 20*time.Second, 1)
		s := newSim(Settings{Algorithm: alg}, 4, expService(10*ms))
		st := s.run(800, 20*time.Second, 1)
		assert.Less(t, median(st.limits[5:]), 16, "%T: %v", alg, st.limits)
		assert.LessOrEqual(t, quantile(st.latencies, 0.99), 2*quantile(unloaded.latencies, 0.99), "%T", alg)
		assert.GreaterOrEqual(t, float64(st.admitted[adaptive.Critical])/20, 0.9*400, "%T: goodput", alg)
	}
}

// Five minutes at twice the capacity: the limit does not creep.
func TestTheLimitDoesNotDrift(t *testing.T) {
	for _, alg := range []Algorithm{Gradient2{}, Vegas{}} {
		s := newSim(Settings{Algorithm: alg}, 4, expService(10*ms))
		s.run(200, 10*time.Second, 1)
		st := s.run(800, 5*time.Minute, 1)
		first, last := median(st.limits[:60]), median(st.limits[240:])
		assert.InDelta(t, first, last, max(1, 0.1*float64(first)), "%T: first minute %d, last %d", alg, first, last)
	}
}

// Two criticalities at twice the capacity, 30 % of the calls Critical and the rest
// Sheddable, with the default reserved shares (Sheddable may use half the limit): the
// Critical calls are admitted, the Sheddable ones take the refusals.
func TestTheLowestCriticalityIsRefusedFirst(t *testing.T) {
	const limit = 40
	s := newSim(Settings{MinLimit: limit, MaxLimit: limit, InitialLimit: limit, Reserved: defaultReserved}, 0, expService(10*ms))
	st := s.run(2*limit*100, time.Minute, 0.3)
	highTotal := st.admitted[adaptive.Critical] + st.refused[adaptive.Critical]
	refusals := st.refused[adaptive.Critical] + st.refused[adaptive.Sheddable]
	assert.GreaterOrEqual(t, float64(st.admitted[adaptive.Critical])/float64(highTotal), 0.99, "Critical calls admitted: %+v", st)
	assert.GreaterOrEqual(t, float64(st.refused[adaptive.Sheddable])/float64(refusals), 0.95, "refusals that are Sheddable: %+v", st)
	assert.Positive(t, st.admitted[adaptive.Sheddable], "Sheddable calls still get their share")
}

func TestAReservedShareRefusesLowerLevelsWithTheirReason(t *testing.T) {
	l := NewLimiter(Settings{MinLimit: 10, MaxLimit: 10, Reserved: [adaptive.NumCriticalities]float64{adaptive.CriticalPlus: 0.2, adaptive.Critical: 0.3}})
	for range 5 {
		require.NoError(t, l.TryAcquire(adaptive.SheddablePlus))
	}
	assert.ErrorIs(t, l.TryAcquire(adaptive.Sheddable), adaptive.ErrCriticality, "SHEDDABLE* may use half")
	for range 3 {
		require.NoError(t, l.TryAcquire(adaptive.Critical))
	}
	assert.ErrorIs(t, l.TryAcquire(adaptive.Critical), adaptive.ErrCriticality, "CRITICAL 80 %")
	for range 2 {
		require.NoError(t, l.TryAcquire(adaptive.CriticalPlus))
	}
	assert.ErrorIs(t, l.TryAcquire(adaptive.CriticalPlus), adaptive.ErrLimit)
	assert.Equal(t, 10, l.Inflight())
}

func TestTheQueueServesTheHighestNewestFirstAndPushesOutTheLowestOldest(t *testing.T) {
	l := NewLimiter(Settings{MinLimit: 1, MaxLimit: 1, QueueSize: 3})
	w, err := l.Acquire(adaptive.Critical)
	require.NoError(t, err)
	require.Nil(t, w, "a permit at once")
	a, _ := l.Acquire(adaptive.Sheddable)
	b, _ := l.Acquire(adaptive.Critical)
	c, _ := l.Acquire(adaptive.Sheddable)
	require.Equal(t, 3, l.Queued())
	d, err := l.Acquire(adaptive.Sheddable)
	require.NoError(t, err)
	require.NotNil(t, d)
	<-a.Done()
	assert.ErrorIs(t, a.Result(), adaptive.ErrQueueFull, "the oldest of the lowest level was pushed out")
	e, err := l.Acquire(adaptive.Sheddable)
	require.NoError(t, err, "c pushed out")
	require.NotNil(t, e)
	<-c.Done()
	assert.ErrorIs(t, c.Result(), adaptive.ErrQueueFull)

	l.Release(0, ms, Succeeded)
	<-b.Done()
	require.NoError(t, b.Result(), "the Critical one first")
	assert.False(t, l.Cancel(d), "d was still waiting: it holds nothing")
	l.Release(0, ms, Succeeded) // b's permit goes to e
	<-e.Done()
	require.NoError(t, e.Result())
	assert.Equal(t, 1, l.Inflight())
	assert.Zero(t, l.Queued())

	w, err = l.Acquire(adaptive.CriticalPlus)
	require.NoError(t, err)
	require.NotNil(t, w)
	l.Release(0, ms, Succeeded)
	<-w.Done()
	assert.True(t, l.Cancel(w), "granted before the caller gave up: it must release")
	l.Release(0, ms, Succeeded)
	assert.Zero(t, l.Inflight())
}

func TestAFullQueueRefusesALowerCall(t *testing.T) {
	l := NewLimiter(Settings{MinLimit: 1, MaxLimit: 1, QueueSize: 1})
	require.NoError(t, l.TryAcquire(adaptive.Critical))
	w, err := l.Acquire(adaptive.Critical)
	require.NoError(t, err)
	_, err = l.Acquire(adaptive.Sheddable)
	assert.ErrorIs(t, err, adaptive.ErrQueueFull)
	assert.False(t, l.Cancel(w))
	l.Release(0, ms, Succeeded)
}

// Goroutines flat out take and give back permits, through the queue too, while the limit
// moves (windows close with latencies that swing, and the range is reconfigured): at every
// admission the count in flight is within the limit it was admitted under.
func TestInflightNeverExceedsTheLimit(t *testing.T) {
	l := NewLimiter(Settings{InitialLimit: 8, MaxLimit: 16, Window: ms, MinSamples: 1, QueueSize: 4})
	var violations, admissions, now atomic.Int64
	check := func(s uint64) {
		admissions.Add(1)
		if uint32(s) > uint32(s>>32) {
			violations.Add(1)
		}
	}
	l.onAdmit = check
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				c := adaptive.Criticality(r.IntN(adaptive.NumCriticalities))
				if r.IntN(2) == 0 {
					s, err := l.tryAcquire(c)
					if err != nil {
						continue
					}
					check(s)
				} else {
					w, err := l.Acquire(c)
					if err != nil {
						continue
					}
					if w != nil {
						if r.IntN(4) == 0 && !l.Cancel(w) {
							continue
						}
						<-w.Done()
						if w.Result() != nil {
							continue
						}
					}
				}
				rtt := time.Duration(1+r.IntN(20)) * ms
				l.Release(time.Duration(now.Add(int64(ms))), rtt, Outcome(r.IntN(3)))
			}
		}()
	}
	wg.Add(1)
	go func() { // moves the range the limit is clamped to
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			l.Configure(Settings{MinLimit: 1 + i%4, MaxLimit: 4 + i%13, Window: ms, MinSamples: 1, QueueSize: 4})
		}
	}()
	for admissions.Load() < 200_000 {
		time.Sleep(10 * ms)
	}
	close(stop)
	wg.Wait()
	assert.Zero(t, violations.Load(), "admissions over the limit, of %d", admissions.Load())
	assert.Zero(t, l.Inflight(), "every permit given back")
	assert.Zero(t, l.Queued())
}

// defaultReserved are the shares of config.AdaptiveReserved's default
// (CRITICAL=30,SHEDDABLE_PLUS=20): Sheddable calls use at most half the limit,
// SheddablePlus 70 %, Critical and CriticalPlus all of it.
var defaultReserved = [adaptive.NumCriticalities]float64{adaptive.Critical: 0.3, adaptive.SheddablePlus: 0.2}
