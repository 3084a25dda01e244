package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Lane is one library's side of an interleaved comparison.
type Lane struct {
	// Lib is the library's name.
	Lib string
	// NsPerOp holds the time per call of each turn, in turn order.
	NsPerOp []float64
	// AllocsPerOp is the mean number of heap allocations per call (sequential calls, the
	// runtime's counters).
	AllocsPerOp float64
}

// Comparison is one case measured with the libraries taking turns.
type Comparison struct {
	Case  string
	Lanes []Lane
}

// Lane returns the lane of lib, or nil.
func (c Comparison) Lane(lib string) *Lane {
	for i := range c.Lanes {
		if c.Lanes[i].Lib == lib {
			return &c.Lanes[i]
		}
	}
	return nil
}

// Ratios returns the time ratio a/b of each turn: a's turn and b's ran next to each
// other, so a busy machine slowed both alike.
func (c Comparison) Ratios(a, b string) []float64 {
	la, lb := c.Lane(a), c.Lane(b)
	if la == nil || lb == nil {
		return nil
	}
	r := make([]float64, len(la.NsPerOp))
	for i := range r {
		r[i] = la.NsPerOp[i] / lb.NsPerOp[i]
	}
	return r
}

// Execute is the lane of a front-door case that calls rxhystrix's Kind.ExecutePooled on the
// same key (the tables' "vs Execute" column).
const Execute = "Execute"

// Compare measures case c for every library that takes part, the libraries taking turns:
// in each of turns turns every library makes calls for about turn (the same number of
// calls every turn, sized once), in an order that rotates from turn to turn. On a shared
// machine the load changes from one second to the next; libraries measured in separate
// benchmarks a few seconds apart see different loads, libraries taking turns of a few
// milliseconds see the same. A front-door case (Door) takes turns with Execute. Every
// answer is checked.
func Compare(c Case, libs []Lib, turns int, turn time.Duration) (Comparison, error) {
	type lane struct {
		lib  string
		call Call
		n    int
	}
	var lanes []lane
	for _, lib := range libs {
		if !c.Includes(lib) {
			continue
		}
		t, call, err := c.Open(lib)
		if err != nil {
			return Comparison{}, err
		}
		defer t.Close()
		lanes = append(lanes, lane{lib: lib.Name, call: call})
		if c.Door != nil { // a front door takes turns with Execute on the same key
			lanes = append(lanes, lane{lib: Execute, call: func(ctx context.Context) (int, error) { return t.Do(ctx, c.Run) }})
		}
	}
	out := Comparison{Case: c.Name, Lanes: make([]Lane, len(lanes))}
	for i := range lanes {
		l := &lanes[i]
		// Warm up, and size a turn: calls for about the turn's duration.
		ns, err := c.calls(l.call, 100)
		if err != nil {
			return out, fmt.Errorf("%s/%s: %w", c.Name, l.lib, err)
		}
		l.n = max(int(float64(turn.Nanoseconds())/max(ns, 1)), 10)
		allocs, err := allocsPerCall(l.call, c.Want)
		if err != nil {
			return out, fmt.Errorf("%s/%s: %w", c.Name, l.lib, err)
		}
		out.Lanes[i] = Lane{Lib: l.lib, AllocsPerOp: allocs, NsPerOp: make([]float64, turns)}
	}
	for t := range turns {
		for j := range lanes {
			k := (t + j) % len(lanes)
			ns, err := c.calls(lanes[k].call, lanes[k].n)
			if err != nil {
				return out, fmt.Errorf("%s/%s: %w", c.Name, lanes[k].lib, err)
			}
			out.Lanes[k].NsPerOp[t] = ns
		}
	}
	return out, nil
}

// calls makes about n calls, from GOMAXPROCS goroutines at once for a parallel case, and
// returns the wall time per call in nanoseconds.
func (c Case) calls(call Call, n int) (float64, error) {
	workers := 1
	if c.Parallel {
		workers = runtime.GOMAXPROCS(0)
	}
	each := max(n/workers, 1)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			ctx := context.Background()
			for range each {
				if v, err := call(ctx); v != c.Want || err != nil {
					errs[w] = fmt.Errorf("got %d, %v; want %d", v, err, c.Want)
					return
				}
			}
		})
	}
	wg.Wait()
	return float64(time.Since(start).Nanoseconds()) / float64(each*workers), errors.Join(errs...)
}

// allocsPerCall returns the heap allocations per call of 1,000 sequential calls, the
// least of three tries: the runtime's counters also see what other goroutines allocate
// meanwhile (a library's own, a timer's).
func allocsPerCall(call Call, want int) (float64, error) {
	const n = 1000
	ctx := context.Background()
	least := math.Inf(1)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			if v, err := call(ctx); v != want || err != nil {
				return 0, fmt.Errorf("got %d, %v; want %d", v, err, want)
			}
		}
		runtime.ReadMemStats(&after)
		least = min(least, float64(after.Mallocs-before.Mallocs)/n)
	}
	return least, nil
}

// Median returns the median of xs (the mean of the middle two for an even count), 0 for
// none.
func Median(xs []float64) float64 {
	return Quantile(xs, 0.5)
}

// Quantile returns the q-quantile of xs (0 <= q <= 1), interpolating between ranks; 0 for
// none.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (pos-float64(i))*(s[i+1]-s[i])
}
