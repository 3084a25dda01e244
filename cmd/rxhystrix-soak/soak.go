package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/hooks"
)

// settings shape one soak run.
type settings struct {
	Duration time.Duration // how long the load runs
	Report   time.Duration // between two samples
	Warmup   time.Duration // growth is measured from the first sample at or after it
	Flap     time.Duration // the flapping dependency's period (down for its first 40 %)
	Keys     int           // command keys (at least 5: four batch keys and one more)
	Workers  int           // load goroutines
	Hang     time.Duration // an operation that takes longer is a hang
	Seed     uint64        // of the workers' random choices
}

// defaults are the settings of make soak: ten minutes over 1,000 keys.
func defaults() settings {
	return settings{Duration: 10 * time.Minute, Report: 30 * time.Second, Warmup: time.Minute,
		Flap: 20 * time.Second, Keys: 1000, Workers: 16, Hang: 30 * time.Second, Seed: 1}
}

func (set settings) validate() error {
	switch {
	case set.Duration <= 0 || set.Report <= 0 || set.Flap <= 0 || set.Hang <= 0:
		return errors.New("durations must be positive")
	case set.Warmup < 0 || set.Warmup >= set.Duration:
		return errors.New("the warm-up must end before the load does")
	case set.Keys <= collapsers:
		return fmt.Errorf("need more than %d keys", collapsers)
	case set.Workers <= 0:
		return errors.New("need at least one worker")
	}
	return nil
}

// soak is one run: the runtime under test, its keys and collapsers, the load and what was
// seen.
type soak struct {
	set      settings
	out      io.Writer
	rt       *command.Runtime
	log      *logCounter
	hook     *panickyHook
	keys     []*key
	order    []int // the workers' key ranks (hot first) -> index in keys, batch keys left out
	batchers []*batcher
	workers  []*worker
	dep      dependency
	callCtx  context.Context // every call's context derives from it: a server's long-lived base context
	endCalls context.CancelFunc
	opened   atomic.Int64 // breaker transitions to OPEN
	closed   atomic.Int64 // and back to CLOSED

	mu        sync.Mutex
	anomalies []string // answers no execution can give, first few kept
	nAnomaly  int
}

// run runs a soak with set and reports to out. It returns an error describing every
// failed check: growth, a hang, a miscount, something left held, a leak.
func run(ctx context.Context, set settings, out io.Writer) error {
	if err := set.validate(); err != nil {
		return err
	}
	before := goleak.IgnoreCurrent() // what runs before the soak is not its leak
	s, err := newSoak(set, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "soak: %s of load over %d keys from %d workers; a sample every %s, growth measured from %s on\n",
		set.Duration, set.Keys, set.Workers, set.Report, set.Warmup)
	samples, loadErr := s.load(ctx)
	if errors.Is(loadErr, errHang) {
		s.endCalls()
		return loadErr // stuck goroutines cannot be waited for
	}
	errs := []error{loadErr, s.settleDown(samples)}
	s.endCalls()
	errs = append(errs, s.close(), s.checkAnomalies())
	if err := goleak.Find(before); err != nil {
		errs = append(errs, fmt.Errorf("goroutines left after Runtime.Close: %w", err))
	} else {
		fmt.Fprintln(out, "after Runtime.Close: no goroutine left")
	}
	return errors.Join(errs...)
}

func newSoak(set settings, out io.Writer) (*soak, error) {
	s := &soak{set: set, out: out, log: newLogCounter(), hook: &panickyHook{},
		dep: dependency{start: time.Now(), period: set.Flap}}
	s.callCtx, s.endCalls = context.WithCancel(context.Background())
	reg := hooks.NewRegistry()
	reg.SetExecutionHook(s.hook)
	s.rt = command.NewRuntime(command.WithHooks(reg), command.WithLogger(slog.New(s.log)))
	s.rt.Breakers().OnStateChange(func(t breaker.Transition) {
		switch t.To {
		case breaker.Open:
			s.opened.Add(1)
		case breaker.Closed:
			s.closed.Add(1)
		}
	})
	s.keys = newKeys(s.rt, set.Keys)
	s.order = rand.New(rand.NewPCG(set.Seed, 0)).Perm(set.Keys - collapsers)
	for i := range s.order {
		s.order[i] += collapsers
	}
	for i := range collapsers {
		b, err := newBatcher(s, s.keys[i], i)
		if err != nil {
			s.endCalls()
			s.rt.Close()
			return nil, err
		}
		s.batchers = append(s.batchers, b)
	}
	for i := range set.Workers {
		s.workers = append(s.workers, newWorker(s, set.Seed+uint64(i)+1))
	}
	return s, nil
}

// errHang is the error of an operation that did not end within settings.Hang.
var errHang = errors.New("hang")

// load runs the workers for the duration (or until ctx ends), takes a sample every report
// interval and checks it for growth against the first sample after the warm-up. A load
// that has not yet produced every outcome it is meant to (a contested one, such as a
// rejection, is up to chance on a busy machine) goes on until it has, for at most the
// duration again. It returns the samples, and errHang if an operation hangs (with every
// goroutine's stack written out).
func (s *soak) load(ctx context.Context) ([]sample, error) {
	loadCtx, stop := context.WithTimeout(ctx, 2*s.set.Duration)
	defer stop()
	var wg sync.WaitGroup
	for _, w := range s.workers {
		wg.Go(func() { w.loop(loadCtx) })
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()

	start := time.Now()
	samples := []sample{{}}
	var base *sample // the first sample at or after the warm-up
	var growth []string
	extended := false
	report := time.NewTicker(s.set.Report)
	defer report.Stop()
	watch := time.NewTicker(time.Second)
	defer watch.Stop()
	for {
		select {
		case <-report.C:
			x := s.take(time.Since(start))
			x.print(s.out, samples[len(samples)-1])
			samples = append(samples, x)
			switch {
			case base == nil && x.at >= s.set.Warmup:
				base = &x
				fmt.Fprintln(s.out, "  (growth is measured from here)")
			case base != nil:
				growth = append(growth, x.growth(*base, s.tolerance())...)
			}
		case <-watch.C:
			if err := s.watch(); err != nil {
				return samples, err
			}
			if time.Since(start) >= s.set.Duration && loadCtx.Err() == nil {
				if missing := s.missing(s.tallied()); len(missing) == 0 {
					stop()
				} else if !extended {
					extended = true
					fmt.Fprintf(s.out, "not produced yet: %s; the load goes on (at most %s more)\n",
						strings.Join(missing, ", "), s.set.Duration)
				}
			}
		case <-stopped:
			fmt.Fprintf(s.out, "load stopped after %s\n", time.Since(start).Round(time.Millisecond))
			if len(growth) > 0 {
				return samples, fmt.Errorf("growth after the warm-up:\n  %s", strings.Join(growth, "\n  "))
			}
			return samples, nil
		}
	}
}

// watch returns errHang, after writing every goroutine's stack, if a worker's operation
// has run for longer than settings.Hang.
func (s *soak) watch() error {
	for i, w := range s.workers {
		if b := w.busy.Load(); b != 0 && time.Since(time.Unix(0, b)) > s.set.Hang {
			fmt.Fprintf(s.out, "HANG: worker %d has been in one operation for more than %s; goroutines:\n", i, s.set.Hang)
			_ = pprof.Lookup("goroutine").WriteTo(s.out, 1)
			return fmt.Errorf("%w: worker %d stuck for more than %s", errHang, i, s.set.Hang)
		}
	}
	return nil
}

// tolerance is how far figures may rise after the warm-up, and why.
// The heap after a forced GC holds the runtime's fixed state (every key's metrics,
// breaker, semaphores; the percentile windows are full after their first minute) and the
// work in flight, a few KiB per operation: 4 MiB is several times that noise, and less
// than one leaked byte per operation of a ten-minute soak. Goroutines and what executions
// hold are bounded by the work in flight: an operation runs at most four commands at once
// (a request context's), each holding at most an execution permit or a pool slot (queued
// or running), a fallback permit and a running count, and a handful of goroutines (a
// stream's producer and forwarder, a resumption, a timer's callback); runs abandoned at
// their timeout or cancel hold pool workers, at most every pool's maximum size. A figure
// beyond that bound cannot be load; smaller leaks still show at the end, when nothing
// may be held and no goroutine may be left.
func (s *soak) tolerance() tolerance {
	pooled := 0
	for _, n := range poolMaxSizes(s.keys) {
		pooled += n
	}
	return tolerance{heap: 4 * mib, goroutines: 8*s.set.Workers + pooled, held: int64(16*s.set.Workers + pooled)}
}

// settleDown waits for every execution to end once the load stopped, then for a rolling
// bucket, and compares what the callers counted with the library's cumulative counts.
func (s *soak) settleDown(samples []sample) error {
	start := time.Now()
	h := s.held()
	for h.total() != 0 && time.Since(start) < s.set.Hang {
		time.Sleep(10 * time.Millisecond)
		h = s.held()
	}
	x := s.take(samples[len(samples)-1].at + time.Since(start))
	x.print(s.out, x)
	if h.total() != 0 {
		return fmt.Errorf("still held %s after the load stopped: %s", s.set.Hang, h)
	}
	fmt.Fprintf(s.out, "after the load: nothing held after %s\n", time.Since(start).Round(time.Millisecond))
	time.Sleep(rollingBucket) // cumulative counts move once per rolling-stats bucket
	s.rt.Metrics().Flush()
	return s.compare()
}

// close closes the runtime, which must return.
func (s *soak) close() error {
	done := make(chan struct{})
	go func() { s.rt.Close(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(s.set.Hang):
		_ = pprof.Lookup("goroutine").WriteTo(s.out, 1)
		return fmt.Errorf("Runtime.Close did not return within %s", s.set.Hang)
	}
}

// settle records in k's tally the outcome of one execution whose caller got (got, err), or
// reports an answer no execution can give.
func (s *soak) settle(k *key, o *outcome, got tag, err error) {
	if serr := o.settle(got, err); serr != nil {
		s.anomaly(k.name + ": " + serr.Error())
		return
	}
	k.tally.record(o)
}

// anomaly notes something a caller got that no execution can give.
func (s *soak) anomaly(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nAnomaly++; len(s.anomalies) < 20 {
		s.anomalies = append(s.anomalies, msg)
	}
}

func (s *soak) checkAnomalies() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nAnomaly == 0 {
		return nil
	}
	return fmt.Errorf("%d answers no execution can give, e.g.:\n  %s", s.nAnomaly, strings.Join(s.anomalies, "\n  "))
}
