package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// threadFloor is Go's own floor for THREAD isolation: a call handed to a goroutine parked
// on a channel, and its answer handed back on another, with nothing else (no pool, no
// timeout, no metrics, no allocation). Close stops the goroutine.
type threadFloor struct {
	calls chan *threadFloor // the floor itself: one call at a time
	done  chan struct{}
	ctx   context.Context
	run   Run
	v     int
	err   error
}

func newThreadFloor() *threadFloor {
	f := &threadFloor{calls: make(chan *threadFloor, 1), done: make(chan struct{}, 1)}
	go func() {
		for c := range f.calls {
			c.v, c.err = c.run(c.ctx)
			c.done <- struct{}{}
		}
	}()
	return f
}

// call runs run on the floor's goroutine and returns its answer.
func (f *threadFloor) call(ctx context.Context, run Run) (int, error) {
	f.ctx, f.run = ctx, run
	f.calls <- f
	<-f.done
	return f.v, f.err
}

func (f *threadFloor) Close() { close(f.calls) }

// BenchmarkThreadFloor: the Success call handed to a parked goroutine and back through
// channels, the least THREAD isolation can cost in Go (the ThreadIsolated rows' floor).
func BenchmarkThreadFloor(b *testing.B) {
	f := newThreadFloor()
	defer f.Close()
	b.ReportAllocs()
	sequential(b, func(ctx context.Context) (int, error) { return f.call(ctx, Succeed) }, Answer)
}

// BenchmarkThreadVersusFloor: rxhystrix's ThreadIsolated call and the floor taking turns
// (1,000 calls each, rotating), so that a busy machine slows both alike. It reports both
// times per call and their ratio (rxhystrix/floor), what THREAD isolation adds to the
// hand-off itself; and the same for cep21's Success, the goal's reference.
func BenchmarkThreadVersusFloor(b *testing.B) {
	c, _ := CaseNamed("ThreadIsolated")
	rx, rxCall, err := c.Open(Libraries()[0])
	if err != nil {
		b.Fatal(err)
	}
	defer rx.Close()
	cep, cepCall, err := c.Open(Lib{Name: "cep21", New: NewCep21})
	if err != nil {
		b.Fatal(err)
	}
	defer cep.Close()
	f := newThreadFloor()
	defer f.Close()
	calls := []Call{rxCall, func(ctx context.Context) (int, error) { return f.call(ctx, Succeed) }, cepCall}
	const n = 1000
	var spent [3]time.Duration
	ctx := context.Background()
	turns := 0
	for b.Loop() {
		for j := range calls {
			i := (j + turns) % len(calls)
			start := time.Now()
			for range n {
				if v, err := calls[i](ctx); v != Answer || err != nil {
					b.Fatalf("got %d, %v", v, err)
				}
			}
			spent[i] += time.Since(start)
		}
		turns++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(turns*n) }
	b.ReportMetric(per(spent[0]), "rxhystrix-ns/call")
	b.ReportMetric(per(spent[1]), "floor-ns/call")
	b.ReportMetric(per(spent[2]), "cep21-ns/call")
	b.ReportMetric(per(spent[0])/per(spent[1]), "rxhystrix/floor")
	b.ReportMetric(per(spent[0])/per(spent[2]), "rxhystrix/cep21")
}

// BenchmarkCacheLinePingPong tells which of its two modes the VM is in: two goroutines
// add to one counter (one cache line passed between the cores) and then to counters on
// lines of their own. It reports both times per add and their ratio (shared/own): near
// 1 the vCPUs share a cache, and a line written by both costs little (ParallelSuccess is
// then at its fastest); several times 1 they do not, and every line the two cores both
// write costs a transfer per write.
func BenchmarkCacheLinePingPong(b *testing.B) {
	var shared atomic.Int64
	var own [2]struct {
		n atomic.Int64
		_ [120]byte
	}
	run := func(add func(g int)) time.Duration {
		var ready atomic.Int32
		times := make(chan time.Duration, 2)
		for g := range 2 {
			go func() {
				for ready.Add(1); ready.Load() < 2; { // both running before either adds
				}
				start := time.Now()
				for range pingPongAdds {
					add(g)
				}
				times <- time.Since(start)
			}()
		}
		return max(<-times, <-times)
	}
	var sharedT, ownT time.Duration
	for b.Loop() {
		sharedT += run(func(int) { shared.Add(1) })
		ownT += run(func(g int) { own[g].n.Add(1) })
	}
	adds := float64(b.N) * pingPongAdds // per goroutine: the two add at once
	b.ReportMetric(float64(sharedT.Nanoseconds())/adds, "shared-ns/add")
	b.ReportMetric(float64(ownT.Nanoseconds())/adds, "own-ns/add")
	b.ReportMetric(float64(sharedT)/float64(ownT), "shared/own")
}

// pingPongAdds is how many adds each goroutine makes per iteration of the ping-pong probe.
const pingPongAdds = 100_000
