package bulkhead_test

import (
	"testing"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
)

func benchPool(b *testing.B, inCode config.ThreadPoolOverrides) *bulkhead.Pool {
	store := config.NewStore()
	b.Cleanup(store.Close)
	r := bulkhead.NewPoolRegistry(store, clock.System())
	b.Cleanup(r.Close)
	p, err := r.Get("bench", inCode)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkSemaphoreTryAcquireRelease(b *testing.B) {
	s := bulkhead.NewSemaphore(config.Fixed("limit", 10))
	b.ReportAllocs()
	for b.Loop() {
		if !s.TryAcquire() {
			b.Fatal("rejected")
		}
		s.Release()
	}
}

func BenchmarkSemaphoreTryAcquireReleaseParallel(b *testing.B) {
	s := bulkhead.NewSemaphore(config.Fixed("limit", 1<<20))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if !s.TryAcquire() {
				b.Error("rejected")
				return
			}
			s.Release()
		}
	})
}

// BenchmarkPoolSubmitRoundTrip submits to an idle pool and waits for the task to run:
// Submit, hand-off to a parked worker, run, and the worker parking again.
func BenchmarkPoolSubmitRoundTrip(b *testing.B) {
	p := benchPool(b, nil)
	done := make(chan struct{}, 1)
	task := func() { done <- struct{}{} }
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Submit(task); err != nil {
			b.Fatal(err)
		}
		<-done
	}
}

func BenchmarkPoolSubmitRoundTripParallel(b *testing.B) {
	p := benchPool(b, config.ThreadPoolOverrides{"coreSize": "64"})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		done := make(chan struct{}, 1)
		task := func() { done <- struct{}{} }
		for pb.Next() {
			if err := p.Submit(task); err != nil {
				b.Error(err)
				return
			}
			<-done
		}
	})
}

// BenchmarkPoolSubmitRejected measures the rejection path of a saturated pool.
func BenchmarkPoolSubmitRejected(b *testing.B) {
	p := benchPool(b, config.ThreadPoolOverrides{"coreSize": "1"})
	started, release := make(chan struct{}), make(chan struct{})
	if err := p.Submit(func() { close(started); <-release }); err != nil {
		b.Fatal(err)
	}
	<-started
	defer close(release)
	task := func() {}
	b.ReportAllocs()
	for b.Loop() {
		if p.Submit(task) == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkPoolRegistryGet(b *testing.B) {
	store := config.NewStore()
	b.Cleanup(store.Close)
	r := bulkhead.NewPoolRegistry(store, clock.System())
	b.Cleanup(r.Close)
	if _, err := r.Get("bench", nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Get("bench", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineChannelRoundTrip is the floor the pool is measured against: a task sent
// to one dedicated goroutine over a channel and waited for, with no pool logic at all.
func BenchmarkBaselineChannelRoundTrip(b *testing.B) {
	tasks := make(chan func(), 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for t := range tasks {
			t()
		}
	}()
	defer func() { close(tasks); <-exited }()
	done := make(chan struct{}, 1)
	task := func() { done <- struct{}{} }
	b.ReportAllocs()
	for b.Loop() {
		tasks <- task
		<-done
	}
}
