package bench

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/hedgepolicy"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// Tail is the hedging acceptance (issue 27): a loopback backend answers in Fast except a
// share Slow of its requests, which take SlowFor; calls are offered open loop at Rate a
// second for Duration, the first Warmup not measured (the key's percentile needs a
// window), each hedged once at the latency percentile Percentile.
type Tail struct {
	Fast, SlowFor    time.Duration
	Slow             float64
	Rate             int
	Duration, Warmup time.Duration
	Percentile       int
}

// DefaultTail is the bounded form the tests run: 5 ms, 5 % at 200 ms, 400 calls a second
// for 3 s (1 s of warm-up), hedged at the p95.
func DefaultTail() Tail {
	return Tail{Fast: 5 * time.Millisecond, SlowFor: 200 * time.Millisecond, Slow: 0.05, Rate: 400,
		Duration: 3 * time.Second, Warmup: time.Second, Percentile: 95}
}

// TailOutcome is what one library did in the tail run.
type TailOutcome struct {
	Lib                 string
	Originals, Attempts int64         // measured calls, and the requests they made
	P50, P99, Max       time.Duration // the callers' latencies
	HedgeDelay          time.Duration // the delay at the end (rxhystrix: the key's percentile)
	// Lateness is the machine's: the p99 of how late the offering goroutine woke from its
	// 1 ms sleeps during the measured calls. A hedged call waits for a timer and a
	// second request, each as late as the machine makes it: on a busy machine this is
	// what the tail gets on top of the library's own work.
	Lateness time.Duration
}

// ExtraShare is the share of extra attempts over the measured calls.
func (o TailOutcome) ExtraShare() float64 {
	return float64(o.Attempts-o.Originals) / float64(max(o.Originals, 1))
}

// tailLib is a library set up for the tail run: how it calls, the hedge delay it uses
// now, and how it is closed.
type tailLib struct {
	call  func(context.Context, func(context.Context) error) error
	delay func() time.Duration
	close func()
}

// TailLibraries are the hedging setups compared: rxhystrix at the key's own rolling
// percentile (a 1 s window of 100 ms buckets, 10 ms until it has samples) and failsafe-go
// at its own quantile of recent durations.
func TailLibraries(s Tail) map[string]func() tailLib {
	rx := func() tailLib {
		rt := command.NewRuntime(command.WithConfig(config.NewStore()))
		set := command.Setter{Runtime: rt, CommandKey: "tail", Properties: config.Overrides{
			"execution.isolation.strategy":                        "SEMAPHORE",
			"execution.isolation.semaphore.maxConcurrentRequests": "100000",
			"execution.isolation.thread.timeoutInMilliseconds":    "5000",
			"circuitBreaker.enabled":                              "false",
			"metrics.rollingPercentile.timeInMilliseconds":        "1000",
			"metrics.rollingPercentile.numBuckets":                "10",
			"metrics.healthSnapshot.intervalInMilliseconds":       "100",
			"hedge.maxHedges":                                     "1",
			"hedge.delayInMilliseconds":                           "10",
			"hedge.delayPercentile":                               strconv.Itoa(s.Percentile),
		}}
		return tailLib{
			call: func(ctx context.Context, run func(context.Context) error) error {
				_, err := command.New(set, func(ctx context.Context) (struct{}, error) { return struct{}{}, run(ctx) }).Execute(ctx)
				return err
			},
			delay: func() time.Duration {
				return rt.Metrics().Command("tail").ExecutionLatencyPercentile(float64(s.Percentile))
			},
			close: rt.Close,
		}
	}
	fs := func() tailLib {
		exec := failsafe.With[any](hedgepolicy.NewBuilderWithDelayQuantile[any](float64(s.Percentile)/100, 200, 20).
			WithMaxHedges(1).Build())
		return tailLib{
			call: func(ctx context.Context, run func(context.Context) error) error {
				return exec.WithContext(ctx).RunWithExecution(func(e failsafe.Execution[any]) error { return run(e.Context()) })
			},
			delay: func() time.Duration { return 0 },
			close: func() {},
		}
	}
	return map[string]func() tailLib{"rxhystrix p95": rx, "failsafe-go p95": fs}
}

// RunTail runs s through lib against a loopback backend.
func RunTail(name string, s Tail, lib tailLib) TailOutcome {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		d := s.Fast
		if rand.Float64() < s.Slow {
			d = s.SlowFor
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	client := loopbackClient()
	defer client.CloseIdleConnections()
	get := func(ctx context.Context) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lat, delays, late []time.Duration
	offer := func(d time.Duration, measured bool) int64 {
		start, n := time.Now(), int64(0)
		for elapsed, sampled := time.Duration(0), time.Duration(0); elapsed < d; elapsed = time.Since(start) {
			if measured && elapsed >= sampled {
				delays = append(delays, lib.delay())
				sampled += 100 * time.Millisecond
			}
			for due := int64(elapsed) * int64(s.Rate) / int64(time.Second); n < due; n++ {
				wg.Go(func() {
					t0 := time.Now()
					_ = lib.call(context.Background(), get)
					if measured {
						mu.Lock()
						lat = append(lat, time.Since(t0))
						mu.Unlock()
					}
				})
			}
			slept := time.Now()
			time.Sleep(time.Millisecond)
			if measured {
				late = append(late, time.Since(slept)-time.Millisecond)
			}
		}
		return n
	}
	offer(s.Warmup, false)
	wg.Wait()
	before := hits.Load()
	o := TailOutcome{Lib: name}
	o.Originals = offer(s.Duration-s.Warmup, true)
	wg.Wait()
	o.Attempts = hits.Load() - before
	slices.Sort(delays)
	o.HedgeDelay = delays[len(delays)/2]
	slices.Sort(lat)
	at := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	o.P50, o.P99, o.Max = at(0.50), at(0.99), lat[len(lat)-1]
	slices.Sort(late)
	o.Lateness = late[len(late)*99/100]
	return o
}
