package bench

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/failsafe-go/failsafe-go/ratelimiter"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// limiterLane is one limiter's admission in BenchmarkRateLimiter: it reports whether a
// permit was granted now.
type limiterLane struct {
	name  string
	admit func() bool
}

// limiterLanes returns rxhystrix's ratelimit.Bucket (reading the system clock per call, as
// the rate limiter stage does through the runtime's clock) and failsafe-go's smooth
// limiter (TryAcquirePermit) at the same rate, each with a burst of one.
func limiterLanes(b testing.TB, perSecond float64) []limiterLane {
	bucket, err := ratelimit.NewBucket(ratelimit.Rate{PerSecond: perSecond, Burst: 1})
	if err != nil {
		b.Fatal(err)
	}
	clk := clock.System()
	base := clk.Now()
	fs := ratelimiter.NewSmoothWithMaxRate[any](time.Duration(float64(time.Second) / perSecond))
	return []limiterLane{
		{"rxhystrix", func() bool { _, ok := bucket.Reserve(clk.Since(base), 0); return ok }},
		{"failsafe", fs.TryAcquirePermit},
	}
}

// BenchmarkRateLimiter compares the cost of one admission decision, the limiters taking
// turns (so a busy machine slows both alike): "admit" at a rate no caller reaches (every
// call is granted), "refuse" at one a minute (every call after the first is refused),
// each from one goroutine and from GOMAXPROCS at once. It reports each lane's ns/op and
// the ratio rxhystrix/failsafe of the medians over the turns.
func BenchmarkRateLimiter(b *testing.B) {
	for _, c := range []struct {
		name      string
		perSecond float64
		parallel  bool
	}{
		{"admit", 1e9, false}, {"refuse", 1.0 / 60, false},
		{"admit-parallel", 1e9, true}, {"refuse-parallel", 1.0 / 60, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			lanes := limiterLanes(b, c.perSecond)
			const turns = 20
			n := b.N/turns + 1
			workers := 1
			if c.parallel {
				workers = runtime.GOMAXPROCS(0)
			}
			ns := make([][]float64, len(lanes))
			for t := range turns {
				for j := range lanes {
					k := (t + j) % len(lanes)
					start := time.Now()
					var wg sync.WaitGroup
					for range workers {
						wg.Go(func() {
							for range n / workers {
								lanes[k].admit()
							}
						})
					}
					wg.Wait()
					ns[k] = append(ns[k], float64(time.Since(start).Nanoseconds())/float64(n/workers*workers))
				}
			}
			for k, l := range lanes {
				b.ReportMetric(Median(ns[k]), l.name+"-ns/op")
			}
			ratios := make([]float64, turns)
			for t := range ratios {
				ratios[t] = ns[0][t] / ns[1][t]
			}
			b.ReportMetric(Median(ratios), "rxhystrix/failsafe")
		})
	}
}

// TestRateLimiterAllocations: neither limiter allocates per decision.
func TestRateLimiterAllocations(t *testing.T) {
	for _, l := range limiterLanes(t, 1e9) {
		if a := testing.AllocsPerRun(1000, func() { l.admit() }); a != 0 {
			t.Errorf("%s: %.1f allocations per admission", l.name, a)
		}
	}
}
