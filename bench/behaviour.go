package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

// Scenario is the load of the behaviour comparison: a dependency that fails for FailFor and
// then recovers, called by Workers goroutines at Rate calls per second in all for
// Duration; then a Burst of calls as fast as the workers can on a fresh key and a healthy
// dependency, to see whether metrics keep up.
type Scenario struct {
	Duration time.Duration
	FailFor  time.Duration
	Workers  int
	Rate     int
	Burst    int
}

// DefaultScenario fails for 2 s, runs 8 s at 500 calls/s from 4 goroutines, then bursts
// 1,000,000 calls: enough for metrics that drop events under load to show it.
func DefaultScenario() Scenario {
	return Scenario{Duration: 8 * time.Second, FailFor: 2 * time.Second, Workers: 4, Rate: 500, Burst: 1_000_000}
}

// EvaluateOnFailure is the name of rxhystrix with circuitBreaker.evaluateOnFailure in the
// behaviour comparison: its breaker re-evaluates the thresholds on every failure instead
// of waiting for the next health snapshot (Hystrix's behaviour, the default).
const EvaluateOnFailure = "rxhystrix-evaluateOnFailure"

// BehaviourLibraries returns Libraries with rxhystrix in both modes: Hystrix's health
// snapshots (the default) and circuitBreaker.evaluateOnFailure.
func BehaviourLibraries() []Lib {
	var out []Lib
	for _, l := range Libraries() {
		out = append(out, l)
		if l.Name == "rxhystrix" {
			out = append(out, Lib{Name: EvaluateOnFailure, New: newRxhystrixEvaluateOnFailure})
		}
	}
	return out
}

func newRxhystrixEvaluateOnFailure(key string, s Settings) Target {
	return newRxTarget(key, s, config.Overrides{"circuitBreaker.evaluateOnFailure": "true"})
}

// Outcome is what one library did in the scenario. Counts are -1 when the library offers
// no way to read them.
type Outcome struct {
	Lib string
	// Calls is the number of calls made during the scenario.
	Calls int64
	// CallerErrors counts calls that returned an error to the caller (the fallback should
	// answer every call).
	CallerErrors int64
	// ReachedFailing counts the calls that reached the dependency while it was failing,
	// ReachedHealthy those that reached it afterwards.
	ReachedFailing, ReachedHealthy int64
	// ShortCircuited counts the calls answered without calling the dependency.
	ShortCircuited int64
	// Opened is true when a call was short-circuited; TimeToOpen is from the first
	// failure to the first short-circuited call.
	Opened     bool
	TimeToOpen time.Duration
	// Closed is true when the last short-circuited call came at least ReopenGuard before
	// the end (every later call reached the dependency); TimeToClose is from the recovery
	// to that last short-circuited call.
	Closed      bool
	TimeToClose time.Duration
	// Recorded is the number of executions the library's metrics recorded in the scenario.
	Recorded int64
	// BurstCalls and BurstRecorded are the burst's calls and the executions its metrics
	// recorded; BurstDropped the events the library reported dropping (-1: not reported).
	BurstCalls, BurstRecorded, BurstDropped int64
	// BurstTime is how long the burst took.
	BurstTime time.Duration
	// GoroutinesLeft is the change of runtime.NumGoroutine across the library's run,
	// after its targets were closed.
	GoroutinesLeft int
}

// ReopenGuard is how long before the end of the scenario the last short-circuit must have
// happened for the circuit to count as closed again.
const ReopenGuard = 500 * time.Millisecond

// dependency fails until failUntil, then answers; it counts the calls in each phase.
type dependency struct {
	failUntil        time.Time
	failing, healthy atomic.Int64
}

func (d *dependency) call(context.Context) (int, error) {
	if time.Now().Before(d.failUntil) {
		d.failing.Add(1)
		return 0, ErrDependency
	}
	d.healthy.Add(1)
	return Answer, nil
}

// tally is one worker's view of its calls.
type tally struct {
	calls, errors, short  int64
	firstShort, lastShort time.Duration // since the scenario's start; -1 none
}

func newTally() tally { return tally{firstShort: -1, lastShort: -1} }

func (t *tally) merge(o tally) {
	t.calls += o.calls
	t.errors += o.errors
	t.short += o.short
	if o.firstShort >= 0 && (t.firstShort < 0 || o.firstShort < t.firstShort) {
		t.firstShort = o.firstShort
	}
	t.lastShort = max(t.lastShort, o.lastShort)
}

// scenarioRuns numbers the scenarios of the process, so that every run gets fresh keys.
var scenarioRuns atomic.Int64

// RunScenario runs sc against lib and returns the outcome. The library gets Defaults with
// its metric collectors attached (Settings.Metrics).
func RunScenario(lib Lib, sc Scenario) Outcome {
	before := runtime.NumGoroutine()
	s := Defaults()
	s.Metrics = true
	o := Outcome{Lib: lib.Name, Recorded: -1, BurstRecorded: -1, BurstDropped: -1}

	key := fmt.Sprintf("behaviour-%s-%d", lib.Name, scenarioRuns.Add(1)) // hystrix-go's state is global
	t := lib.New(key, s)
	start := time.Now()
	dep := &dependency{failUntil: start.Add(sc.FailFor)}
	tl := drive(t, sc, start, dep.call)
	o.Calls, o.CallerErrors, o.ShortCircuited = tl.calls, tl.errors, tl.short
	o.ReachedFailing, o.ReachedHealthy = dep.failing.Load(), dep.healthy.Load()
	o.Opened, o.TimeToOpen = tl.firstShort >= 0, tl.firstShort
	o.Closed = o.Opened && tl.lastShort < sc.Duration-ReopenGuard
	o.TimeToClose = tl.lastShort - sc.FailFor
	if c, ok := t.(Counter); ok {
		o.Recorded = c.Recorded()
	}

	bt := lib.New(key+"-burst", s)
	o.BurstCalls, o.BurstTime = burst(bt, sc)
	if c, ok := bt.(Counter); ok {
		o.BurstRecorded = c.Recorded()
	}
	if d, ok := bt.(Dropper); ok {
		o.BurstDropped = d.Dropped()
	}
	t.Close()
	bt.Close()
	o.GoroutinesLeft = goroutinesAbove(before, 2*time.Second)
	return o
}

// drive calls t at the scenario's rate until its end and tallies the answers.
func drive(t Target, sc Scenario, start time.Time, dep Run) tally {
	period := time.Duration(sc.Workers) * time.Second / time.Duration(sc.Rate)
	end := start.Add(sc.Duration)
	tallies := make([]tally, sc.Workers)
	var wg sync.WaitGroup
	for w := range sc.Workers {
		wg.Go(func() {
			tl := newTally()
			time.Sleep(time.Duration(w) * period / time.Duration(sc.Workers))
			tick := time.NewTicker(period)
			defer tick.Stop()
			ctx := context.Background()
			for now := time.Now(); now.Before(end); now = <-tick.C {
				at := now.Sub(start)
				var reached atomic.Bool
				v, err := t.Do(ctx, func(ctx context.Context) (int, error) {
					reached.Store(true)
					return dep(ctx)
				})
				tl.calls++
				if err != nil || (v != Answer && v != FallbackAnswer) {
					tl.errors++
				}
				if !reached.Load() {
					tl.short++
					if tl.firstShort < 0 {
						tl.firstShort = at
					}
					tl.lastShort = at
				}
			}
			tallies[w] = tl
		})
	}
	wg.Wait()
	all := newTally()
	for _, tl := range tallies {
		all.merge(tl)
	}
	return all
}

// burst makes sc.Burst calls of a healthy run from sc.Workers goroutines, as fast as they
// can, and returns the calls made and the time taken.
func burst(t Target, sc Scenario) (int64, time.Duration) {
	var calls atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range sc.Workers {
		wg.Go(func() {
			ctx := context.Background()
			for range sc.Burst / sc.Workers {
				_, _ = t.Do(ctx, Succeed)
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	return calls.Load(), time.Since(start)
}

// goroutinesAbove waits up to limit for runtime.NumGoroutine to fall to base and returns
// how far above base it stayed.
func goroutinesAbove(base int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n := runtime.NumGoroutine() - base
		if n <= 0 || time.Now().After(deadline) {
			return max(n, 0)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BehaviourOrder returns the libraries in the order the comparison runs them: hystrix-go
// last, so that the goroutines it never stops do not count against the others.
func BehaviourOrder(libs []Lib) []Lib {
	var out, last []Lib
	for _, l := range libs {
		if l.Name == "afex" {
			last = append(last, l)
		} else {
			out = append(out, l)
		}
	}
	return append(out, last...)
}

// WriteBehaviourTable writes the outcomes of one or more runs as a Markdown table, one row
// per library (runs[i] holds run i's outcomes, the libraries in the same order in every
// run). With several runs a measurement shows the median and, in parentheses, the lowest
// and highest; counts that must be exact show the worst run.
func WriteBehaviourTable(w io.Writer, sc Scenario, runs [][]Outcome) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "Dependency fails for %v, then recovers; %d calls/s from %d goroutines for %v; "+
		"then a burst of %d calls on a fresh key. Breakers: 20 requests, 50 %%, 5 s sleep window. ",
		sc.FailFor, sc.Rate, sc.Workers, sc.Duration, sc.Burst)
	if len(runs) > 1 {
		fmt.Fprintf(b, "%d runs: median (lowest-highest); exactness and goroutines of the worst run.\n\n", len(runs))
	} else {
		b.WriteString("One run.\n\n")
	}
	b.WriteString("| Lib | calls | reached failing dep | short-circuited | time to open | time to close after recovery | caller errors | metrics: recorded/calls | burst: recorded/calls (dropped) | burst time | goroutines left |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|\n")
	for i := range runs[0] {
		var lib []Outcome
		for _, run := range runs {
			lib = append(lib, run[i])
		}
		worst := lib[0] // the run whose counts are furthest from exact
		var calls, reached, short, open, closeAfter, burstTime []float64
		var errs int64
		opened, closed, left := 0, 0, 0
		for _, o := range lib {
			calls, reached, short = append(calls, float64(o.Calls)), append(reached, float64(o.ReachedFailing)), append(short, float64(o.ShortCircuited))
			burstTime = append(burstTime, float64(o.BurstTime))
			errs += o.CallerErrors
			left = max(left, o.GoroutinesLeft)
			if o.Opened {
				opened++
				open = append(open, float64(o.TimeToOpen))
			}
			if o.Closed {
				closed++
				closeAfter = append(closeAfter, float64(o.TimeToClose))
			}
			if misses(o) > misses(worst) {
				worst = o
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %d | %s | %s | %s | %d |\n", lib[0].Lib,
			spread(calls, count), spread(reached, count), spread(short, count),
			times(open, opened, len(lib), "never opened"), times(closeAfter, closed, len(lib), closeNever(opened)),
			errs, exactness(worst.Recorded, worst.Calls), burstCell(worst), spread(burstTime, duration), left)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// misses is how far an outcome's metrics are from exact: the executions they missed in the
// scenario and the burst.
func misses(o Outcome) int64 {
	m := int64(0)
	if o.Recorded >= 0 {
		m += max(o.Calls-o.Recorded, o.Recorded-o.Calls)
	}
	if o.BurstRecorded >= 0 {
		m += max(o.BurstCalls-o.BurstRecorded, o.BurstRecorded-o.BurstCalls)
	}
	return m
}

func count(v float64) string { return fmt.Sprintf("%.0f", v) }

func duration(v float64) string { return time.Duration(v).Round(time.Millisecond).String() }

// spread formats the median of xs and, for several, the lowest and highest.
func spread(xs []float64, format func(float64) string) string {
	s := format(Median(xs))
	if len(xs) > 1 {
		s += " (" + format(Quantile(xs, 0)) + "-" + format(Quantile(xs, 1)) + ")"
	}
	return s
}

// times formats the durations of the runs in which something happened (happened of runs),
// or never when it happened in none.
func times(ds []float64, happened, runs int, never string) string {
	switch {
	case happened == 0:
		return never
	case happened < runs:
		return fmt.Sprintf("%s in %d of %d runs", spread(ds, duration), happened, runs)
	}
	return spread(ds, duration)
}

func closeNever(opened int) string {
	if opened == 0 {
		return "-"
	}
	return "still open at the end"
}

// exactness formats recorded against want: "4000/4000 exact", "3900/4000 (-100)", or
// "n/a" when the library has no cumulative metrics to read.
func exactness(recorded, want int64) string {
	switch {
	case recorded < 0:
		return "n/a (no cumulative metrics)"
	case recorded == want:
		return fmt.Sprintf("%d/%d exact", recorded, want)
	}
	return fmt.Sprintf("%d/%d (%+d)", recorded, want, recorded-want)
}

func burstCell(o Outcome) string {
	s := exactness(o.BurstRecorded, o.BurstCalls)
	if o.BurstDropped >= 0 {
		s += fmt.Sprintf(" (%d reported dropped)", o.BurstDropped)
	}
	return s
}
