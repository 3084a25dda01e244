package adaptivelimit

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// sim is a discrete-event simulation of a limiter in front of a dependency with a real
// capacity, on virtual time: Poisson arrivals, a backend of workers (FIFO queue in front
// of them) whose service times are drawn by service. The limiter reads no clock: the
// simulation hands it the virtual time with each Release.
type sim struct {
	l       *Limiter
	rng     *rand.Rand
	workers int // 0: as many as there are calls (no queueing in the backend)
	service func(r *rand.Rand) time.Duration
	now     time.Duration
	busy    int
	waiting []*simCall // admitted, queued in the backend
	ends    endHeap

	stats simStats
}

type simCall struct {
	start, end time.Duration
	c          adaptive.Criticality
}

// simStats are counts per criticality and the limit once per virtual second.
type simStats struct {
	admitted, refused [adaptive.NumCriticalities]int
	latencies         []time.Duration
	limits            []int
}

func newSim(s Settings, workers int, service func(r *rand.Rand) time.Duration) *sim {
	return &sim{l: NewLimiter(s), rng: rand.New(rand.NewPCG(1, 2)), workers: workers, service: service}
}

func expService(mean time.Duration) func(r *rand.Rand) time.Duration {
	return func(r *rand.Rand) time.Duration { return time.Duration(r.ExpFloat64() * float64(mean)) }
}

func constService(d time.Duration) func(r *rand.Rand) time.Duration {
	return func(*rand.Rand) time.Duration { return d }
}

// run offers perSec calls a second for d, a share high of them Critical and the rest
// Sheddable, and returns the stats of the run.
func (s *sim) run(perSec float64, d time.Duration, high float64) simStats {
	s.stats = simStats{}
	end := s.now + d
	next := s.now + s.gap(perSec)
	tick := s.now + time.Second
	for s.now < end {
		t := next
		if len(s.ends) > 0 && s.ends[0].end < t {
			t = s.ends[0].end
		}
		for tick <= t {
			s.stats.limits = append(s.stats.limits, s.l.Limit())
			tick += time.Second
		}
		s.now = t
		if len(s.ends) > 0 && s.ends[0].end == t {
			c := heap.Pop(&s.ends).(*simCall)
			s.busy--
			s.stats.latencies = append(s.stats.latencies, t-c.start)
			s.l.Release(t, t-c.start, Succeeded)
			s.startWaiting()
			continue
		}
		next = t + s.gap(perSec)
		c := adaptive.Sheddable
		if s.rng.Float64() < high {
			c = adaptive.Critical
		}
		if s.l.TryAcquire(c) != nil {
			s.stats.refused[c]++
			continue
		}
		s.stats.admitted[c]++
		s.waiting = append(s.waiting, &simCall{start: t, c: c})
		s.startWaiting()
	}
	return s.stats
}

func (s *sim) gap(perSec float64) time.Duration {
	return time.Duration(s.rng.ExpFloat64() / perSec * float64(time.Second))
}

// startWaiting starts the backend's queued calls on the free workers.
func (s *sim) startWaiting() {
	for len(s.waiting) > 0 && (s.workers == 0 || s.busy < s.workers) {
		c := s.waiting[0]
		s.waiting = s.waiting[1:]
		c.end = s.now + s.service(s.rng)
		s.busy++
		heap.Push(&s.ends, c)
	}
}

// median returns the median of xs.
func median[T int | time.Duration](xs []T) T {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return ys[len(ys)/2]
}

// quantile returns the q quantile of xs.
func quantile[T int | time.Duration](xs []T, q float64) T {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return ys[min(len(ys)-1, int(q*float64(len(ys))))]
}

type endHeap []*simCall

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(*simCall)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
