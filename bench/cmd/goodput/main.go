// Command goodput measures goodput under overload: a loopback HTTP backend with a real
// capacity (W workers, exponential service time, timer based), an open-loop Poisson load
// generator, and the same arrivals offered to each client (rxhystrix ADAPTIVE with each
// algorithm, failsafe-go's adaptive limiter with its defaults, static SEMAPHORE limits of
// W and 16W), one client at a time. Goodput is the calls that succeeded within the SLO
// (100 ms) per second. It writes a markdown table per scenario and an SVG plot (goodput,
// admitted p99 and the limit against time) into -out. bench/README.md shows them; make
// bench-adaptive runs it.
//
// Scenarios: steps (0.5C, 2C, 3C, 0.5C, -phase each); drop (2C for two phases, W -> W/2
// halfway); drift (2C for -drift, the rxhystrix clients only, 0 to skip). A ratio to the
// unloaded p99 is to the client's own p99 in the first phase of steps.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	phaseDur := flag.Duration("phase", 20*time.Second, "length of each phase (shorter for a quick run)")
	driftDur := flag.Duration("drift", 5*time.Minute, "length of the drift run at 2C (0: skip it)")
	workers := flag.Int("workers", 4, "the backend's workers W")
	mean := flag.Duration("service", 10*time.Millisecond, "mean service time")
	clients := flag.String("clients", strings.Join(clientNames, ","), "the clients to compare, in order")
	out := flag.String("out", "goodput", "directory for the tables and plots")
	seed := flag.Uint64("seed", 1, "seed of the arrivals and service times")
	flag.Parse()

	perSec := float64(*workers) / mean.Seconds()
	p := *phaseDur
	scenarios := []scenario{
		{name: "steps", phases: []phase{{"0.5C", 0.5, p, 1}, {"2C", 2, p, 1}, {"3C", 3, p, 1}, {"0.5C again", 0.5, p, 1}}},
		{name: "drop", phases: []phase{{"2C, W", 2, p, 1}, {"2C, W/2", 2, p, 0.5}}, dropAt: p, drop: *workers / 2},
	}
	if *driftDur > 0 {
		scenarios = append(scenarios, scenario{name: "drift", phases: []phase{{"2C", 2, *driftDur, 1}}})
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096}}
	unloaded := map[string]time.Duration{} // each client's p99 in the first phase of steps
	var report bytes.Buffer
	fmt.Fprintf(&report, "W = %d workers, mean service time %v, C = %.0f calls/s, SLO %v, phases of %v, %s, GOMAXPROCS %d\n\n",
		*workers, *mean, perSec, slo, p, runtime.Version(), runtime.GOMAXPROCS(0))
	for _, s := range scenarios {
		arrivals := s.arrivals(perSec, *seed)
		var results []result
		for _, name := range strings.Split(*clients, ",") {
			if s.name == "drift" && !strings.HasPrefix(name, "rxhystrix") {
				continue
			}
			b, err := newBackend(*workers, *mean, *seed)
			if err != nil {
				log.Fatal(err)
			}
			c, err := newClient(name, hc, b.url, *workers)
			if err != nil {
				log.Fatal(err)
			}
			log.Printf("%s: %s, %d calls over %v", s.name, name, len(arrivals), s.duration())
			results = append(results, run(c, name, s, arrivals, b))
			c.close()
			b.close()
			hc.CloseIdleConnections()
		}
		fmt.Fprintf(&report, "### %s\n\n", s.name)
		if s.name == "drift" {
			drift(&report, results, s.duration())
		} else {
			if s.name == "steps" {
				for _, r := range results {
					unloaded[r.client] = statsOf(r, s, perSec)[0].p99
				}
			}
			table(&report, s, perSec, results, unloaded)
			var svg bytes.Buffer
			plot(&svg, s, perSec, results)
			if err := os.WriteFile(filepath.Join(*out, "goodput-"+s.name+".svg"), svg.Bytes(), 0o644); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Fprintln(&report)
		os.Stdout.Write(report.Bytes()) // so far: a long run shows its tables as they come
		report.Reset()
	}
}
