// Command rxhystrix-soak puts the library under mixed load for a while and fails if
// anything leaks, hangs, crashes or miscounts (make soak; docs/development.md).
//
//	go run ./cmd/rxhystrix-soak -duration 10m
//
// Sixteen workers run operations back to back over 1,000 command keys: SEMAPHORE and
// THREAD commands (Execute, Queue, Future.Cancel with and without
// interruptOnFutureCancel, callers whose context ends early), streams ranged with
// Values, request-cached commands in request contexts and four collapsers. Runs fail
// about 10 % of the time, panic, call runtime.Goexit, return bad requests and business
// errors, outlast their timeouts with or without honouring their context; half the keys
// call a dependency that is down for 8 s of every 20 s, so their breakers open and close;
// fallbacks fail, panic and fill their semaphores; the execution hook panics now and then.
//
// Every 30 s it prints the live heap, goroutines, what executions hold (semaphore permits,
// running executions, pool workers and queues) and the outcomes counted so far. It fails
// if any of the first three grows after the first minute beyond the in-flight margin, if
// an operation hangs, if a caller gets an answer no execution can give, if the library's
// cumulative counts differ from the callers' own tally by a single event, if anything is
// still held once the load stops, or if a goroutine is left after Runtime.Close.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	set := defaults()
	flag.DurationVar(&set.Duration, "duration", set.Duration, "how long the load runs (up to twice as long while an outcome it is meant to produce is missing)")
	flag.DurationVar(&set.Report, "report", set.Report, "time between two samples")
	flag.DurationVar(&set.Warmup, "warmup", set.Warmup, "growth is measured from the first sample after this")
	flag.DurationVar(&set.Flap, "flap", set.Flap, "period of the flapping dependency (down for its first 40 %)")
	flag.IntVar(&set.Keys, "keys", set.Keys, "command keys")
	flag.IntVar(&set.Workers, "workers", set.Workers, "load goroutines")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, set, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rxhystrix-soak: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("rxhystrix-soak: PASS")
}
