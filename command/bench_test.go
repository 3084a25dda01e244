package command

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/config"
)

func benchRuntime(b *testing.B) *Runtime {
	rt := NewRuntime()
	b.Cleanup(rt.Close)
	return rt
}

func benchRun(context.Context) (int, error)             { return 1, nil }
func benchFallback(context.Context, error) (int, error) { return 2, nil }

// reportGoroutines reports the goroutines alive after the loop minus those before it,
// per call (0 means the path starts none that outlive the call).
func reportGoroutines(b *testing.B, before int) {
	b.ReportMetric(float64(runtime.NumGoroutine()-before)/float64(b.N), "goroutines/op")
}

// benchExecutions executes a fresh command of s (with a fallback) per iteration, checks
// that it answers want, and reports allocations and goroutines per call.
func benchExecutions(b *testing.B, s Setter, want int) {
	ctx := context.Background()
	before := runtime.NumGoroutine()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := New(s, benchRun).WithFallback(benchFallback).Execute(ctx); err != nil || v != want {
			b.Fatal(v, err)
		}
	}
	reportGoroutines(b, before)
}

// BenchmarkExecute: SEMAPHORE isolation, timeout on, fallback set, metrics on.
func BenchmarkExecute(b *testing.B) {
	rt := benchRuntime(b)
	s := Setter{Runtime: rt, CommandKey: "bench", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "1000"}}
	benchExecutions(b, s, 1)
}

// BenchmarkExecuteShortCircuit: the breaker is open (forced), the fallback answers.
func BenchmarkExecuteShortCircuit(b *testing.B) {
	rt := benchRuntime(b)
	s := Setter{Runtime: rt, CommandKey: "bench", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "circuitBreaker.forceOpen": "true"}}
	benchExecutions(b, s, 2)
}

// BenchmarkExecuteThread: THREAD isolation (goroutine pool), timeout on, fallback set.
func BenchmarkExecuteThread(b *testing.B) {
	rt := benchRuntime(b)
	s := Setter{Runtime: rt, CommandKey: "bench"}
	New(s, benchRun).Execute(context.Background()) // warm the pool
	benchExecutions(b, s, 1)
}

// BenchmarkObserve: Observe (hot, replaying) on SEMAPHORE isolation, one subscriber.
func BenchmarkObserve(b *testing.B) {
	rt := benchRuntime(b)
	s := Setter{Runtime: rt, CommandKey: "bench", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "1000"}}
	ctx := context.Background()
	before := runtime.NumGoroutine()
	b.ReportAllocs()
	for b.Loop() {
		for it := range New(s, benchRun).WithFallback(benchFallback).Observe(ctx).Observe() {
			if it.Error() {
				b.Fatal(it.E)
			}
		}
	}
	reportGoroutines(b, before)
}

// BenchmarkExecuteWatchingContext: as BenchmarkExecute, but run selects on ctx.Done, so
// the lazy timeout timer and done channel are made.
func BenchmarkExecuteWatchingContext(b *testing.B) {
	rt := benchRuntime(b)
	s := Setter{Runtime: rt, CommandKey: "bench", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "1000"}}
	run := func(ctx context.Context) (int, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		default:
			return 1, nil
		}
	}
	ctx := context.Background()
	before := runtime.NumGoroutine()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := New(s, run).WithFallback(benchFallback).Execute(ctx); err != nil || v != 1 {
			b.Fatal(v, err)
		}
	}
	reportGoroutines(b, before)
}

// semaphoreSetter is the SEMAPHORE setter of the front-door benchmarks.
func semaphoreSetter(rt *Runtime) Setter {
	return Setter{Runtime: rt, CommandKey: "bench", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "1000"}}
}

// BenchmarkQueueGet: Queue then Future.Get on SEMAPHORE isolation.
func BenchmarkQueueGet(b *testing.B) {
	s := semaphoreSetter(benchRuntime(b))
	ctx := context.Background()
	before := runtime.NumGoroutine()
	b.ReportAllocs()
	for b.Loop() {
		f, err := New(s, benchRun).WithFallback(benchFallback).Queue(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if v, err := f.Get(ctx); err != nil || v != 1 {
			b.Fatal(v, err)
		}
	}
	reportGoroutines(b, before)
}

// BenchmarkToObservable: ToObservable drained, on SEMAPHORE isolation.
func BenchmarkToObservable(b *testing.B) {
	s := semaphoreSetter(benchRuntime(b))
	before := runtime.NumGoroutine()
	b.ReportAllocs()
	for b.Loop() {
		for it := range New(s, benchRun).WithFallback(benchFallback).ToObservable().Observe() {
			if it.Error() {
				b.Fatal(it.E)
			}
		}
	}
	reportGoroutines(b, before)
}

// BenchmarkValues: the iter.Seq2 front door on SEMAPHORE isolation.
func BenchmarkValues(b *testing.B) {
	s := semaphoreSetter(benchRuntime(b))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for v, err := range New(s, benchRun).WithFallback(benchFallback).Values(ctx) {
			if err != nil || v != 1 {
				b.Fatal(v, err)
			}
		}
	}
}

// BenchmarkExecuteWatchingCancellableContext: as BenchmarkExecuteWatchingContext, with a
// caller context that can end (a request's), so the run context watches it.
func BenchmarkExecuteWatchingCancellableContext(b *testing.B) {
	s := semaphoreSetter(benchRuntime(b))
	run := func(ctx context.Context) (int, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		default:
			return 1, nil
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := New(s, run).WithFallback(benchFallback).Execute(ctx); err != nil || v != 1 {
			b.Fatal(v, err)
		}
	}
}

// BenchmarkSubscriptionFloor: a goroutine that leaves one constant in a channel with room
// for it, drained like BenchmarkToObservable: the floor of a subscription that returns
// before the work is done (a goroutine, its channel and a hand-off), which ToObservable
// pays on top of Execute.
func BenchmarkSubscriptionFloor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ch := make(chan rxgo.Item, 1)
		go func() {
			defer close(ch)
			ch <- rxgo.Of(1)
		}()
		for it := range ch {
			if it.V != 1 {
				b.Fatal(it)
			}
		}
	}
}

// BenchmarkAdaptiveVersusSemaphore: an uncontended Execute under ADAPTIVE isolation next to
// one under SEMAPHORE, interleaved in blocks of 100 so that both see the same machine;
// reports each one's ns/op and their ratio (the budget: at most 1.3).
func BenchmarkAdaptiveVersusSemaphore(b *testing.B) {
	rt := benchRuntime(b)
	sem := Setter{Runtime: rt, CommandKey: "sem", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "1000"}}
	ada := Setter{Runtime: rt, CommandKey: "ada", Properties: config.Overrides{"execution.isolation.strategy": "ADAPTIVE"}}
	ctx := context.Background()
	block := func(s Setter) time.Duration {
		start := time.Now()
		for range 100 {
			if v, err := New(s, benchRun).WithFallback(benchFallback).Execute(ctx); err != nil || v != 1 {
				b.Fatal(v, err)
			}
		}
		return time.Since(start)
	}
	var tSem, tAda time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		tSem += block(sem)
		tAda += block(ada)
		n += 100
	}
	b.ReportMetric(float64(tSem.Nanoseconds())/float64(n), "semaphore-ns/op")
	b.ReportMetric(float64(tAda.Nanoseconds())/float64(n), "adaptive-ns/op")
	b.ReportMetric(float64(tAda)/float64(tSem), "adaptive/semaphore")
}
