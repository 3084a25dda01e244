package metrics

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/observable"
)

func benchRegistry(b *testing.B) *Registry {
	store := config.NewStore()
	// flat-out publishing outruns the consumer on purpose: keep the drop warnings quiet
	r := NewRegistry(store, clock.System(), WithLogger(slog.New(slog.DiscardHandler)))
	b.Cleanup(store.Close)
	b.Cleanup(r.Close)
	return r
}

var benchResult = result(Success).WithExecuted(false).
	WithExecutionLatency(3 * time.Millisecond).WithTotalLatency(4 * time.Millisecond)

// BenchmarkPublish measures MarkStart+MarkComplete of an execution that ran (two events)
// on the caller: the cost a command pays for metrics.
func BenchmarkPublish(b *testing.B) {
	r := benchRegistry(b)
	m := r.Command("bench")
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m.MarkStart()
			m.MarkComplete(benchResult)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.MarkStart()
				m.MarkComplete(benchResult)
			}
		})
	})
	b.Run("short-circuited", func(b *testing.B) {
		sc := result(ShortCircuited, FallbackSuccess)
		b.ReportAllocs()
		for b.Loop() {
			m.MarkComplete(sc)
		}
	})
	r.Flush()
	// publishing flat out outruns the single consumer: the drops are counted, not hidden
	b.Logf("dropped while publishing flat out: %d", r.Dropped())
}

// BenchmarkConsumer measures end-to-end throughput with the consumer keeping up: events
// are published in runs of 8192 followed by a Flush, so ns/op is the consumer's cost per
// event (publisher and consumer overlap on two cores).
func BenchmarkConsumer(b *testing.B) {
	r := benchRegistry(b)
	keys := make([]*CommandMetrics, 64)
	for i := range keys {
		keys[i] = r.Command(string(rune('A' + i)))
	}
	for _, tc := range []struct {
		name string
		res  ExecutionResult
	}{{"executed", benchResult}, {"not-executed", result(ShortCircuited, FallbackSuccess)}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				keys[i%len(keys)].MarkComplete(tc.res)
				if i++; i%8192 == 0 {
					r.roundTrip()
				}
			}
			r.roundTrip()
			if d := r.Dropped(); d != 0 {
				b.Fatalf("dropped %d", d)
			}
		})
	}
}

var sink uint64

func spin(n int) {
	x := sink
	for i := range n {
		x = x*6364136223846793005 + uint64(i)
	}
	sink = x
}

// BenchmarkPublishPaced publishes between bursts of other work, as a command does, so the
// consumer is often idle and parked: ns/op minus BenchmarkSpin is the publish cost then.
func BenchmarkPublishPaced(b *testing.B) {
	r := benchRegistry(b)
	m := r.Command("bench")
	b.ReportAllocs()
	for b.Loop() {
		spin(300)
		m.MarkComplete(benchResult)
	}
	r.Flush()
	// nonzero only when the machine starves the consumer (other load on the cores)
	b.ReportMetric(float64(r.Dropped())/float64(b.N), "dropped/op")
}

func BenchmarkSpin(b *testing.B) {
	for b.Loop() {
		spin(300)
	}
}

// BenchmarkFold measures the consumer's per-event work alone (no channel): folding one
// completion into the tick accumulator.
func BenchmarkFold(b *testing.B) {
	r := benchRegistry(b)
	m := r.Command("bench")
	for _, tc := range []struct {
		name string
		res  ExecutionResult
	}{{"executed", benchResult}, {"not-executed", result(ShortCircuited, FallbackSuccess)}} {
		b.Run(tc.name, func(b *testing.B) {
			ev := event{s: m.s, kind: evCommand, counts: tc.res.events, a: -1, b: -1}
			if tc.res.executed {
				ev.a, ev.b = int64(tc.res.executionLatency), int64(tc.res.totalLatency)
			}
			t := &tick{idx: 1}
			b.ReportAllocs()
			for b.Loop() {
				r.add(t, ev)
			}
			m.s.kt = nil
		})
	}
}

// BenchmarkBusHandOffPaced is the floor under BenchmarkPublishPaced: the same paced
// publishing into a bare observable.Bus drained by one goroutine (no metrics work).
func BenchmarkBusHandOffPaced(b *testing.B) {
	bus := observable.NewBus[event](1 << 15)
	ctx, cancel := context.WithCancel(context.Background())
	q := bus.Subscribe(ctx)
	done := make(chan struct{})
	go func() { // polls once per millisecond while items flow, as the registry does
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for !q.Done() {
			for _, ok := q.Poll(); ok; _, ok = q.Poll() {
			}
			select {
			case <-tick.C:
			case <-ctx.Done():
			}
		}
	}()
	for bus.Subscribers() == 0 {
	}
	ev := event{kind: evCommand, a: 1, b: 2}
	b.ReportAllocs()
	for b.Loop() {
		spin(300)
		bus.Publish(ev)
	}
	cancel()
	<-done
	b.ReportMetric(float64(bus.Dropped())/float64(b.N), "dropped/op")
}
