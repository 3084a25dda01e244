package bench

import (
	"context"
	"testing"
	"time"
)

// benchCase is one Benchmark<Case>: the libraries it includes, their settings, an
// optional setup and the measured body.
type benchCase struct {
	name     string
	settings Settings
	include  func(Lib, Target) bool
	setup    func(b *testing.B, t Target)
	body     func(b *testing.B, t Target)
}

// run runs c as one sub-benchmark per library, each on a fresh target of its own key.
// Libraries that report dropped metric events (rxhystrix, hystrix-go) get a dropped/op
// metric.
func (c benchCase) run(b *testing.B) {
	for _, lib := range Libraries() {
		b.Run(lib.Name, func(b *testing.B) {
			t := lib.New("bench-"+c.name+"-"+lib.Name, c.settings)
			defer t.Close()
			if c.include != nil && !c.include(lib, t) {
				b.Skipf("%s has no %s", lib.Name, c.name)
			}
			if c.setup != nil {
				c.setup(b, t)
			}
			d, dropper := t.(Dropper)
			var dropped int64
			if dropper {
				dropped = d.Dropped()
			}
			b.ReportAllocs()
			c.body(b, t)
			if dropper {
				b.ReportMetric(float64(d.Dropped()-dropped)/float64(b.N), "dropped/op")
			}
		})
	}
}

// sequential calls t.Do(run) in a b.Loop and checks every answer.
func sequential(run Run, want int) func(b *testing.B, t Target) {
	return func(b *testing.B, t Target) {
		ctx := context.Background()
		for b.Loop() {
			if v, err := t.Do(ctx, run); v != want || err != nil {
				b.Fatalf("got %d, %v; want %d", v, err, want)
			}
		}
	}
}

func tripped(b *testing.B, t Target) {
	if err := Trip(context.Background(), t, 10*time.Second); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSuccess: the run answers; semaphore isolation where the library has a choice.
func BenchmarkSuccess(b *testing.B) {
	benchCase{name: "success", settings: Defaults(), body: sequential(Succeed, Answer)}.run(b)
}

// BenchmarkSuccessCtx: Success with a run that looks at its context (SucceedWatching),
// as real calls do: every library's timeout is then armed. The headline case.
func BenchmarkSuccessCtx(b *testing.B) {
	benchCase{name: "successctx", settings: Defaults(), body: sequential(SucceedWatching, Answer)}.run(b)
}

// BenchmarkFailureCtx: Failure with a run that looks at its context (FailWatching).
func BenchmarkFailureCtx(b *testing.B) {
	s := Defaults()
	s.RequestVolumeThreshold = NeverTrip
	benchCase{name: "failurectx", settings: s, body: sequential(FailWatching, FallbackAnswer)}.run(b)
}

// BenchmarkFailure: the run fails and the fallback answers; the breaker counts every call
// but never opens (request-volume threshold NeverTrip, the same for every library).
func BenchmarkFailure(b *testing.B) {
	s := Defaults()
	s.RequestVolumeThreshold = NeverTrip
	benchCase{name: "failure", settings: s, body: sequential(Fail, FallbackAnswer)}.run(b)
}

// BenchmarkShortCircuit: the breaker was tripped by failing traffic; every call is
// short-circuited and the fallback answers.
func BenchmarkShortCircuit(b *testing.B) {
	benchCase{name: "shortcircuit", settings: Defaults(), setup: tripped, body: sequential(Fail, FallbackAnswer)}.run(b)
}

// BenchmarkParallelSuccess: the Success case from GOMAXPROCS goroutines on one key.
func BenchmarkParallelSuccess(b *testing.B) {
	benchCase{name: "parallelsuccess", settings: Defaults(), body: parallel(Succeed)}.run(b)
}

// BenchmarkParallelSuccessCtx: ParallelSuccess with a run that looks at its context.
func BenchmarkParallelSuccessCtx(b *testing.B) {
	benchCase{name: "parallelsuccessctx", settings: Defaults(), body: parallel(SucceedWatching)}.run(b)
}

// parallel calls t.Do(run) from GOMAXPROCS goroutines and checks every answer.
func parallel(run Run) func(b *testing.B, t Target) {
	return func(b *testing.B, t Target) {
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			for pb.Next() {
				if v, err := t.Do(ctx, run); v != Answer || err != nil {
					b.Errorf("got %d, %v; want %d", v, err, Answer)
					return
				}
			}
		})
	}
}

// BenchmarkThreadIsolated: the Success case with the run on a goroutine of the library
// (rxhystrix THREAD isolation; hystrix-go always does this).
func BenchmarkThreadIsolated(b *testing.B) {
	s := Defaults()
	s.Thread = true
	benchCase{name: "threadisolated", settings: s, include: func(l Lib, _ Target) bool { return l.Thread },
		body: sequential(Succeed, Answer)}.run(b)
}

// BenchmarkObserve, BenchmarkToObservable and BenchmarkQueueGet: the Success case through
// rxhystrix's other front doors (Observe and ToObservable drained through RxGo, Queue then
// Future.Get), to compare with its Execute in BenchmarkSuccess.
func BenchmarkObserve(b *testing.B)      { frontDoor(b, "observe", FrontDoors.Observe) }
func BenchmarkToObservable(b *testing.B) { frontDoor(b, "toobservable", FrontDoors.ToObservable) }
func BenchmarkQueueGet(b *testing.B)     { frontDoor(b, "queueget", FrontDoors.QueueGet) }

// frontDoor runs the Success case through one front door of the targets that have it.
func frontDoor(b *testing.B, name string, door func(FrontDoors, context.Context, Run) (int, error)) {
	benchCase{name: name, settings: Defaults(),
		include: func(_ Lib, t Target) bool { _, ok := t.(FrontDoors); return ok },
		body: func(b *testing.B, t Target) {
			d := t.(FrontDoors)
			ctx := context.Background()
			for b.Loop() {
				if v, err := door(d, ctx, Succeed); v != Answer || err != nil {
					b.Fatalf("got %d, %v; want %d", v, err, Answer)
				}
			}
		}}.run(b)
}
