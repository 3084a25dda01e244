package command

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

// BenchmarkTenThousandKeys measures what command keys cost end to end (properties,
// metrics with traffic in every bucket of their windows, breaker, semaphores, per-key
// state): 10,000 keys, each executed once per simulated second for 70 s of fake time.
// It reports heap bytes per key and the goroutines the runtime owns.
//
//	go test -run '^$' -bench TenThousandKeys -benchtime 1x ./command/
func BenchmarkTenThousandKeys(b *testing.B) {
	const keys = 10_000
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprintf("Key%05d", i)
	}
	for b.Loop() {
		baseGoroutines := runtime.NumGoroutine()
		before := heapAlloc()
		clk := clock.NewFake(time.Unix(1_700_000_000, 0))
		rt := NewRuntime(WithClock(clk))
		for range 70 {
			for _, name := range names {
				s := Setter{Runtime: rt, CommandKey: name, Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}}
				if _, err := New(s, benchRun).WithFallback(benchFallback).Execute(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			rt.Metrics().Flush()
			clk.Advance(time.Second)
		}
		rt.Metrics().Flush()
		after := heapAlloc()
		b.ReportMetric(float64(after-before)/keys, "heapB/key")
		b.ReportMetric(float64(runtime.NumGoroutine()-baseGoroutines), "goroutines")
		rt.Close()
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
