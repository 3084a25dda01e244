// Command throttle measures graded throttling beside the all-or-nothing Hystrix breaker
// and go-zero's breaker: open-loop load on a loopback HTTP backend, the same for each
// client, one client at a time. Scenarios:
//
//   - overload: the backend accepts up to X calls a second and answers the rest 503 at
//     once (a server shedding load); 3X is offered. What it receives and accepts a second
//     after -warm, over -measure, as multiples of X: Google SRE's throttling lets through
//     about K times what the backend accepts and keeps it accepting X.
//   - recovery: then the backend accepts everything again; how long until the last local
//     refusal, beside what docs/rate-limit-and-faults.md states for the throttle clients
//     ((W/K) ln((1-a)/((K-1)a)), a the share of the offered calls the backend accepted).
//   - failing: the backend fails 30 % of the calls at random, X offered: how many calls
//     each client refused locally over -measure.
//
// Clients: throttle (throttle.enabled, K 2, a window of -window, no breaker),
// throttle+breaker (the same with the default Hystrix breaker, which the 50 % of failures
// K 2 lets through trips), throttle+breaker75 (with the breaker's threshold at 75 %),
// hystrix-breaker (the default breaker alone), go-zero (core/breaker with its defaults:
// K 1.5, a 10 s window).
// make bench-throttle runs it; bench/README.md shows a run.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zeromicro/go-zero/core/logx"
)

func main() {
	x := flag.Float64("x", 200, "the backend's capacity X, calls a second")
	warm := flag.Duration("warm", 10*time.Second, "load before the measure")
	measure := flag.Duration("measure", 20*time.Second, "how long the figures are measured")
	after := flag.Duration("after", 20*time.Second, "how long the recovered backend is watched")
	window := flag.Duration("window", 10*time.Second, "throttle.windowInMilliseconds of the throttle clients")
	clients := flag.String("clients", strings.Join(clientNames, ","), "the clients to compare, in order")
	flag.Parse()
	logx.Disable()

	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}
	fmt.Printf("X = %.0f calls/s; overload: 3X offered for %v + %v measured, then %v recovered; "+
		"failing: 30 %% failures, X offered, %v measured; throttle window %v, K 2; %s, GOMAXPROCS %d\n\n",
		*x, *warm, *measure, *after, *measure, *window, runtime.Version(), runtime.GOMAXPROCS(0))
	fmt.Println("| client | 3X overload: received | accepted | refused locally | refusals stop after recovery | doc's bound | 30 % failing: refused |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range strings.Split(*clients, ",") {
		o := overload(hc, name, *x, *warm, *measure, *after, *window)
		refused := failingRun(hc, name, *x, *measure, *window)
		bound := "-"
		if name == "throttle" { // with the breaker, the breaker decides
			const k = 2.0
			a := o.accepted / 3 // of the offered 3X, as multiples of X
			bound = fmt.Sprintf("%.1f s", window.Seconds()/k*math.Log((1-a)/((k-1)*a)))
		}
		fmt.Printf("| %s | %.2fX | %.2fX | %.0f %% | %s | %s | %d |\n", name, o.received, o.accepted,
			100*o.refused, o.stop, bound, refused)
	}
}

// overloadResult is what a client did under overload and after.
type overloadResult struct {
	received, accepted, refused float64 // a second as multiples of X; refused as a share of the offered
	stop                        string  // from the recovery to the last refusal
}

func overload(hc *http.Client, name string, x float64, warm, measure, after, window time.Duration) overloadResult {
	b, c := setUp(hc, name, x, 0, window)
	defer b.close()
	defer c.close()
	l := startLoad(c, 3*x)
	time.Sleep(warm)
	r0, a0 := b.counts()
	f0 := l.refused.Load()
	time.Sleep(measure)
	r1, a1 := b.counts()
	f1 := l.refused.Load()
	b.mode.Store(int32(recovered))
	recovery := time.Since(l.start)
	time.Sleep(after)
	l.stop()
	s := float64(measure) / float64(time.Second) * x
	res := overloadResult{received: float64(r1-r0) / s, accepted: float64(a1-a0) / s, refused: float64(f1-f0) / (3 * s)}
	res.stop = "none"
	if last := time.Duration(l.lastRefusal.Load()); last > recovery {
		res.stop = fmt.Sprintf("%.1f s", (last - recovery).Seconds())
	} else if f1 > 0 {
		res.stop = "0 s"
	}
	return res
}

func failingRun(hc *http.Client, name string, x float64, measure, window time.Duration) int64 {
	b, c := setUp(hc, name, x, 0.3, window)
	defer b.close()
	defer c.close()
	b.mode.Store(int32(failing))
	l := startLoad(c, x)
	time.Sleep(measure)
	l.stop()
	return l.refused.Load()
}

func setUp(hc *http.Client, name string, x, failShare float64, window time.Duration) (*backend, client) {
	b, err := newBackend(x, failShare, 1)
	if err != nil {
		log.Fatal(err)
	}
	c, err := newClient(name, hc, b.url, window)
	if err != nil {
		log.Fatal(err)
	}
	return b, c
}

// load offers calls to a client open loop: one every 1/rate s, each on a goroutine of
// its own, whatever the others do.
type load struct {
	start       time.Time
	refused     atomic.Int64
	lastRefusal atomic.Int64 // since start
	done        chan struct{}
	wg          sync.WaitGroup
}

func startLoad(c client, rate float64) *load {
	l := &load{start: time.Now(), done: make(chan struct{})}
	every := time.Duration(float64(time.Second) / rate)
	l.wg.Go(func() {
		for i := 1; ; i++ {
			select {
			case <-l.done:
				return
			case <-time.After(time.Until(l.start.Add(time.Duration(i) * every))):
			}
			l.wg.Go(func() {
				if c.call(context.Background()) {
					l.refused.Add(1)
					l.lastRefusal.Store(int64(time.Since(l.start)))
				}
			})
		}
	})
	return l
}

// stop stops the load and waits for the calls in flight.
func (l *load) stop() {
	close(l.done)
	l.wg.Wait()
}
