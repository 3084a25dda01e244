package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// phase is a stretch of a scenario at a constant arrival rate.
type phase struct {
	name     string
	load     float64 // the arrival rate as a multiple of the capacity C
	dur      time.Duration
	capacity float64 // the backend's capacity in the phase, as a share of C (0: all of it)
}

// scenario is the phases of one run, and when (if ever) the backend loses workers.
type scenario struct {
	name   string
	phases []phase
	dropAt time.Duration // 0: never
	drop   int           // workers taken away at dropAt
}

func (s scenario) duration() time.Duration {
	var d time.Duration
	for _, p := range s.phases {
		d += p.dur
	}
	return d
}

// arrivals draws the scenario's Poisson arrival times (offsets from its start) for a
// capacity of perSec calls a second: the same for every client of a run.
func (s scenario) arrivals(perSec float64, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 2))
	var out []time.Duration
	var start time.Duration
	for _, p := range s.phases {
		rate := p.load * perSec
		for t := start; ; {
			t += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
			if t >= start+p.dur {
				break
			}
			out = append(out, t)
		}
		start += p.dur
	}
	return out
}

// record is one call: when it was due (offset from the start), how long it took from
// then, and how it ended.
type record struct {
	at, lat time.Duration
	out     outcome
}

// limitSample is the client's limit at one moment.
type limitSample struct {
	at    time.Duration
	limit int
}

// result is what one client did in one scenario.
type result struct {
	client  string
	records []record
	limits  []limitSample
}

// run offers the arrivals to c, open loop (a call starts when due, whatever the others
// do), samples c's limit every 100 ms, and applies the scenario's capacity drop to b.
func run(c client, name string, s scenario, arrivals []time.Duration, b *backend) result {
	res := result{client: name, records: make([]record, len(arrivals))}
	start := time.Now()
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case now := <-t.C:
				res.limits = append(res.limits, limitSample{at: now.Sub(start), limit: c.limit()})
			}
		}
	})
	if s.dropAt > 0 {
		sampler.Go(func() {
			select {
			case <-time.After(s.dropAt):
				b.lower(s.drop)
			case <-stop:
			}
		})
	}
	var calls sync.WaitGroup
	for i, at := range arrivals {
		time.Sleep(time.Until(start.Add(at)))
		calls.Go(func() {
			o := c.call(context.Background())
			res.records[i] = record{at: at, lat: time.Since(start.Add(at)), out: o}
		})
	}
	calls.Wait()
	close(stop)
	sampler.Wait()
	b.restore()
	return res
}
