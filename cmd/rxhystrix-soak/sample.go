package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// sample is what the soak reads at every report: memory, goroutines, what executions hold
// and what the callers counted.
type sample struct {
	at         time.Duration // since the load started
	heap       uint64        // live heap after a forced GC (HeapAlloc)
	heapInuse  uint64        // heap spans in use after that GC
	goroutines int
	held       held
	open       int // breakers open now
	ops        int64
	counts     [metrics.NumEventTypes]int64 // the callers' tallies over every key
}

// held is what executions in flight hold; it is all zero once they are over.
type held struct {
	exec, fallback int   // semaphore permits (command.Runtime.Permits)
	running        int64 // executions started and not completed (CurrentConcurrency)
	active, queued int   // pool workers running a task, tasks waiting in a pool queue
	batches        int64 // collapser batch commands made and not yet returned
}

func (h held) total() int64 {
	return int64(h.exec+h.fallback+h.active+h.queued) + h.running + h.batches
}

func (h held) String() string {
	return fmt.Sprintf("exec %d fallback %d running %d pool %d+%dq batches %d",
		h.exec, h.fallback, h.running, h.active, h.queued, h.batches)
}

// take reads a sample at time at.
func (s *soak) take(at time.Duration) sample {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	x := sample{at: at, heap: ms.HeapAlloc, heapInuse: ms.HeapInuse, goroutines: runtime.NumGoroutine(), held: s.held()}
	for _, k := range s.keys {
		if b, ok := s.rt.Breakers().Lookup(k.name); ok && b.IsOpen() {
			x.open++
		}
		for e := range x.counts {
			x.counts[e] += k.tally.count(metrics.EventType(e))
		}
	}
	for _, w := range s.workers {
		x.ops += w.ops.Load()
	}
	return x
}

// held sums what the executions of every key hold now.
func (s *soak) held() held {
	var h held
	for _, k := range s.keys {
		exec, fallback := s.rt.Permits(k.name)
		h.exec += exec
		h.fallback += fallback
	}
	// Only the metrics that exist: Metrics().Command would make a key's metrics before
	// its Setter's properties are known.
	for _, m := range s.rt.Metrics().Commands() {
		h.running += m.CurrentConcurrency()
	}
	for _, b := range s.batchers {
		h.batches += b.running.Load()
	}
	for _, m := range s.rt.Metrics().ThreadPools() { // each carries its pool's gauges
		g := m.Gauges()
		h.active += g.ActiveCount
		h.queued += g.QueueSize
	}
	return h
}

const mib = 1 << 20

// print writes the sample as one report line; prev is the sample before (for the rate).
func (x sample) print(w io.Writer, prev sample) {
	rate := float64(x.ops-prev.ops) / max(x.at-prev.at, time.Millisecond).Seconds()
	c := x.counts
	fmt.Fprintf(w, "[%6s] heap %.1f MiB (in use %.1f)  goroutines %d  held: %s  open %d  ops %d (%.0f/s)  "+
		"success %d failure %d timeout %d short %d rejected %d/%d fallback %d/%d/%d/%d cancelled %d "+
		"cached %d emit %d/%d bad %d collapsed %d\n",
		x.at.Round(time.Second), float64(x.heap)/mib, float64(x.heapInuse)/mib, x.goroutines, x.held, x.open, x.ops, rate,
		c[metrics.Success], c[metrics.Failure], c[metrics.Timeout], c[metrics.ShortCircuited],
		c[metrics.SemaphoreRejected], c[metrics.ThreadPoolRejected],
		c[metrics.FallbackSuccess], c[metrics.FallbackFailure], c[metrics.FallbackMissing], c[metrics.FallbackRejection],
		c[metrics.Cancelled], c[metrics.ResponseFromCache], c[metrics.Emit], c[metrics.FallbackEmit],
		c[metrics.BadRequest], c[metrics.Collapsed])
}

// tolerance is how far each figure may rise above its value at the end of the warm-up
// before the soak calls it growth (soak.tolerance says why these margins are not leaks).
type tolerance struct {
	heap       uint64
	goroutines int
	held       int64
}

// growth returns what in x rose beyond tol over base.
func (x sample) growth(base sample, tol tolerance) []string {
	var out []string
	if x.heap > base.heap+tol.heap {
		out = append(out, fmt.Sprintf("heap %.1f MiB at %s > %.1f MiB at %s + %.1f MiB",
			float64(x.heap)/mib, x.at.Round(time.Second), float64(base.heap)/mib, base.at.Round(time.Second), float64(tol.heap)/mib))
	}
	if x.goroutines > base.goroutines+tol.goroutines {
		out = append(out, fmt.Sprintf("goroutines %d at %s > %d at %s + %d",
			x.goroutines, x.at.Round(time.Second), base.goroutines, base.at.Round(time.Second), tol.goroutines))
	}
	if x.held.total() > base.held.total()+tol.held {
		out = append(out, fmt.Sprintf("held %d (%s) at %s > %d at %s + %d",
			x.held.total(), x.held, x.at.Round(time.Second), base.held.total(), base.at.Round(time.Second), tol.held))
	}
	return out
}
