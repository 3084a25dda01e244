package breaker

import (
	"testing"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func BenchmarkClosed(b *testing.B) {
	f := newFixture(b)
	for _, bc := range []struct {
		name string
		call func() bool
	}{
		{"Attempt", f.attempt},
		{"AttemptReportSuccess", func() bool {
			t, ok := f.b.Attempt()
			f.b.Report(t, Success)
			return ok
		}},
		{"AllowRequest", f.b.AllowRequest},
	} {
		b.Run(bc.name+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !bc.call() {
					b.Fatal("closed breaker refused")
				}
			}
		})
		b.Run(bc.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if !bc.call() {
						b.Error("closed breaker refused")
						return
					}
				}
			})
		})
	}
}

// BenchmarkOpenShortCircuit is the short-circuit path: an OPEN breaker inside its sleep
// window, on the system clock (one clock read).
func BenchmarkOpenShortCircuit(b *testing.B) {
	cp, _ := commandProperties(b)
	br := newBreaker("cmd", cp, clock.System(), &recorder{}, func(Transition) {})
	br.onHealth(metrics.NewHealthCounts(100, 100))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := br.Attempt(); ok {
			b.Fatal("open breaker let a request through")
		}
	}
}
