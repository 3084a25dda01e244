package bench

import (
	"context"
	"testing"
)

// benchmark runs the case called name as one sub-benchmark per library that takes part,
// each on a fresh target of its own key, checking every answer. Libraries that report
// dropped metric events (hystrix-go) get a dropped/op metric.
func benchmark(b *testing.B, name string) {
	c, ok := CaseNamed(name)
	if !ok {
		b.Fatalf("no case %s", name)
	}
	for _, lib := range Libraries() {
		if !c.Includes(lib) {
			continue
		}
		b.Run(lib.Name, func(b *testing.B) {
			t, call, err := c.Open(lib)
			if err != nil {
				b.Fatal(err)
			}
			defer t.Close()
			d, dropper := t.(Dropper)
			var dropped int64
			if dropper {
				dropped = d.Dropped()
			}
			b.ReportAllocs()
			if c.Parallel {
				parallel(b, call, c.Want)
			} else {
				sequential(b, call, c.Want)
			}
			if dropper {
				b.ReportMetric(float64(d.Dropped()-dropped)/float64(b.N), "dropped/op")
			}
		})
	}
}

// sequential makes the call in a b.Loop and checks every answer.
func sequential(b *testing.B, call Call, want int) {
	ctx := context.Background()
	for b.Loop() {
		if v, err := call(ctx); v != want || err != nil {
			b.Fatalf("got %d, %v; want %d", v, err, want)
		}
	}
}

// parallel makes the call from GOMAXPROCS goroutines and checks every answer.
func parallel(b *testing.B, call Call, want int) {
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if v, err := call(ctx); v != want || err != nil {
				b.Errorf("got %d, %v; want %d", v, err, want)
				return
			}
		}
	})
}

// BenchmarkSuccessCtx: the run answers at once but looks at its context first
// (SucceedWatching), as real calls do, so every library's timeout is armed. The headline.
func BenchmarkSuccessCtx(b *testing.B) { benchmark(b, "SuccessCtx") }

// BenchmarkFailureCtx: FailureCtx with a run that looks at its context (FailWatching).
func BenchmarkFailureCtx(b *testing.B) { benchmark(b, "FailureCtx") }

// BenchmarkParallelSuccessCtx: SuccessCtx from GOMAXPROCS goroutines on one key.
func BenchmarkParallelSuccessCtx(b *testing.B) { benchmark(b, "ParallelSuccessCtx") }

// BenchmarkSuccess: the run answers without looking at its context; semaphore isolation
// where the library has a choice.
func BenchmarkSuccess(b *testing.B) { benchmark(b, "Success") }

// BenchmarkFailure: the run fails and the fallback answers; the breaker counts every call
// but never opens (request-volume threshold NeverTrip, the same for every library).
func BenchmarkFailure(b *testing.B) { benchmark(b, "Failure") }

// BenchmarkShortCircuit: the breaker was tripped by failing traffic; every call is
// short-circuited and the fallback answers.
func BenchmarkShortCircuit(b *testing.B) { benchmark(b, "ShortCircuit") }

// BenchmarkParallelSuccess: the Success case from GOMAXPROCS goroutines on one key.
func BenchmarkParallelSuccess(b *testing.B) { benchmark(b, "ParallelSuccess") }

// BenchmarkThreadIsolated: the Success case with the run on a goroutine of the library
// (rxhystrix THREAD isolation; hystrix-go always does this).
func BenchmarkThreadIsolated(b *testing.B) { benchmark(b, "ThreadIsolated") }

// BenchmarkNewExecute, BenchmarkObserve, BenchmarkToObservable and BenchmarkQueueGet: the
// Success case through rxhystrix's other front doors (a new Command per call with New and
// Execute, Observe and ToObservable drained through RxGo, Queue then Future.Get), to
// compare with its Kind.ExecutePooled in BenchmarkSuccess.
func BenchmarkNewExecute(b *testing.B)   { benchmark(b, "NewExecute") }
func BenchmarkObserve(b *testing.B)      { benchmark(b, "Observe") }
func BenchmarkToObservable(b *testing.B) { benchmark(b, "ToObservable") }
func BenchmarkQueueGet(b *testing.B)     { benchmark(b, "QueueGet") }
