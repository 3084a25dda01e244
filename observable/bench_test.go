package observable

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
)

// firstOf subscribes to obs and returns its first item, as a blocking caller would.
func firstOf(ctx context.Context, obs rxgo.Observable) rxgo.Item {
	return <-obs.Observe(rxgo.WithContext(ctx))
}

func BenchmarkDefer(b *testing.B) {
	b.ReportAllocs()
	ctx := testCtx(b)
	obs := Defer(func(context.Context) (int, error) { return 1, nil })
	for b.Loop() {
		if it := firstOf(ctx, obs); it.V != 1 {
			b.Fatal(it)
		}
	}
}

// BenchmarkReplay measures one replay subscription to a finished replay.
func BenchmarkReplay(b *testing.B) {
	b.ReportAllocs()
	ctx := testCtx(b)
	var r Replay
	r.Add(rxgo.Of(1))
	r.Finish()
	obs := r.Observable()
	for b.Loop() {
		if it := firstOf(ctx, obs); it.V != 1 {
			b.Fatal(it)
		}
	}
}

func BenchmarkToFuture(b *testing.B) {
	b.ReportAllocs()
	ctx := testCtx(b)
	obs := Defer(func(context.Context) (int, error) { return 1, nil })
	for b.Loop() {
		if v, err := ToFuture[int](ctx, obs).Get(ctx); err != nil || v != 1 {
			b.Fatal(v, err)
		}
	}
}

// drainedBus returns a bus with one subscriber that a goroutine keeps reading until the
// benchmark ends, parking whenever it finds the queue empty.
func drainedBus(b *testing.B) *Bus[int] {
	bus := NewBus[int](1024)
	ctx, cancel := context.WithCancel(context.Background())
	q := bus.Subscribe(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pollAll(q); !q.Done(); pollAll(q) {
			<-q.Ready()
		}
	}()
	b.Cleanup(func() {
		cancel()
		<-done
		b.ReportMetric(float64(bus.Dropped())/float64(b.N), "drops/op")
	})
	return bus
}

// BenchmarkBusPublish measures Publish to one subscriber: "delivered" always finds room
// (the buffer is emptied with the timer stopped), "full" always drops, and "drained-*"
// race a reader goroutine (drops/op shows how often the reader fell behind).
func BenchmarkBusPublish(b *testing.B) {
	b.Run("delivered", func(b *testing.B) {
		b.ReportAllocs()
		const buffer = 4096
		bus := NewBus[int](buffer)
		q := bus.Subscribe(testCtx(b))
		for i := 0; b.Loop(); i++ {
			if i%buffer == 0 {
				b.StopTimer()
				pollAll(q)
				b.StartTimer()
			}
			bus.Publish(i)
		}
		if bus.Dropped() != 0 {
			b.Fatal("dropped", bus.Dropped())
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		bus := NewBus[int](1)
		bus.Subscribe(testCtx(b))
		for i := 0; b.Loop(); i++ {
			bus.Publish(i)
		}
	})
	b.Run("drained-serial", func(b *testing.B) {
		b.ReportAllocs()
		bus := drainedBus(b)
		for i := 0; b.Loop(); i++ {
			bus.Publish(i)
		}
	})
	b.Run("drained-parallel", func(b *testing.B) {
		b.ReportAllocs()
		bus := drainedBus(b)
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				bus.Publish(i)
			}
		})
	})
}

// BenchmarkBucketsPerItem measures folding one item into a bucket: the hand-off through
// the source queue plus the add function (the offer waits while the queue is full).
func BenchmarkBucketsPerItem(b *testing.B) {
	b.ReportAllocs()
	src := NewQueue[int](1024)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := Buckets(func(context.Context) *Queue[int] { return src }, time.Hour, clock.System(),
		func(time.Time) int { return 0 }, func(acc, v int) int { return acc + v }).
		Observe(rxgo.WithContext(ctx))
	for b.Loop() {
		for !src.Offer(1) {
			runtime.Gosched()
		}
	}
	src.Close()
	for range out {
	}
}
