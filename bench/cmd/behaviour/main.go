// Command behaviour runs the behaviour comparison of rxhystrix and its peers and prints it
// as a Markdown table: a dependency that fails for a while and then recovers, called at a
// fixed rate; per library, the calls that reached the failing dependency, the time to open
// and to close again, and whether its metrics counted every call (also under a burst).
//
// It takes about 10 to 20 s per library and run (real time: it measures real libraries);
// every run goes through all the libraries before the next starts, and the table shows
// medians over the runs with the lowest and highest. rxhystrix runs twice: with Hystrix's
// health snapshots (the default) and with circuitBreaker.evaluateOnFailure
// (rxhystrix-evaluateOnFailure).
//
//	go run ./cmd/behaviour [-runs 3] [-duration 8s] [-fail 2s] [-rate 500] [-workers 4] [-burst 1000000] [-libs rxhystrix,cep21]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rxhystrix/rxhystrix/bench"
)

func main() {
	sc := bench.DefaultScenario()
	flag.DurationVar(&sc.Duration, "duration", sc.Duration, "scenario length per library")
	flag.DurationVar(&sc.FailFor, "fail", sc.FailFor, "how long the dependency fails at the start")
	flag.IntVar(&sc.Rate, "rate", sc.Rate, "calls per second, all workers together")
	flag.IntVar(&sc.Workers, "workers", sc.Workers, "calling goroutines")
	flag.IntVar(&sc.Burst, "burst", sc.Burst, "calls of the burst phase")
	only := flag.String("libs", "", "comma-separated libraries to run (default: all)")
	runs := flag.Int("runs", 3, "runs of every library; the table shows medians with the lowest and highest")
	flag.Parse()
	if sc.Workers < 1 || sc.Rate < 1 || sc.Duration <= sc.FailFor || *runs < 1 {
		fmt.Fprintln(os.Stderr, "behaviour: need -workers >= 1, -rate >= 1, -duration > -fail and -runs >= 1")
		os.Exit(2)
	}

	var libs []bench.Lib
	for _, lib := range bench.BehaviourOrder(bench.BehaviourLibraries()) {
		if *only == "" || slices.Contains(strings.Split(*only, ","), lib.Name) {
			libs = append(libs, lib)
		}
	}
	all := make([][]bench.Outcome, *runs)
	for i := range all {
		for _, lib := range libs {
			fmt.Fprintf(os.Stderr, "behaviour: run %d of %d: %s...\n", i+1, *runs, lib.Name)
			all[i] = append(all[i], bench.RunScenario(lib, sc))
		}
	}
	if err := bench.WriteBehaviourTable(os.Stdout, sc, all); err != nil {
		fmt.Fprintln(os.Stderr, "behaviour:", err)
		os.Exit(1)
	}
}
