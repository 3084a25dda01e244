package metrics

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

var benchResult = result(Success).withExecuted(false).
	withExecutionLatency(3 * time.Millisecond).WithTotalLatency(4 * time.Millisecond)

// BenchmarkMarkComplete measures what a command pays for metrics, flat out on one key
// from G goroutines: ns/op is wall time per completion over all of them. "executed" is
// MarkStart plus MarkComplete with both latencies (a command whose run ran), "short" a
// short-circuited completion.
//
//	go test -run '^$' -bench MarkComplete -benchmem ./metrics/
func BenchmarkMarkComplete(b *testing.B) {
	for _, tc := range []struct {
		name string
		mark func(m *CommandMetrics)
	}{
		{"executed", func(m *CommandMetrics) { m.MarkStart(); m.MarkComplete(benchResult) }},
		{"short", func(m *CommandMetrics) { m.MarkComplete(result(ShortCircuited, FallbackSuccess)) }},
	} {
		for _, g := range []int{1, 4, 16} {
			b.Run(fmt.Sprintf("%s/goroutines=%d", tc.name, g), func(b *testing.B) {
				r := NewRegistry(config.NewStore(), clock.System())
				b.Cleanup(r.Close)
				m := r.Command("bench")
				b.ReportAllocs()
				b.ResetTimer()
				var wg sync.WaitGroup
				for w := range g {
					n := b.N / g
					if w < b.N%g {
						n++
					}
					wg.Go(func() {
						for range n {
							tc.mark(m)
						}
					})
				}
				wg.Wait()
			})
		}
	}
}

// BenchmarkRoll measures one boundary of the roll over 10,000 active keys (health, stats
// and percentile buckets all closing): ns/op is per boundary.
func BenchmarkRoll(b *testing.B) {
	clk := clock.NewFake(epoch)
	r := NewRegistry(config.NewStore(), clk, WithIdleTimeout(0))
	b.Cleanup(r.Close)
	keys := make([]*CommandMetrics, 10_000)
	for i := range keys {
		keys[i] = r.Command(fmt.Sprintf("key-%05d", i))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range keys {
			m.MarkStart()
			m.MarkComplete(benchResult)
		}
		clk.Advance(10 * time.Second) // every window of every key closes a bucket
	}
}
