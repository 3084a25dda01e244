package metrics

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

// BenchmarkCompletionFeed measures what a slow completion subscriber costs the command
// path: 16 goroutines publish the completions of the exactness tests (mix) flat out on
// one key of a registry with no subscriber ("none") and of one with a subscriber that
// sleeps 10 ms per item ("slow"). The two take turns of b.N/turns completions each, so a
// busy machine slows both alike; it reports each lane's median ns per completion over
// the turns, the median of the turns' ratios slow/none, and the share of completions the
// slow subscriber missed.
//
//	go test -run '^$' -bench CompletionFeed -benchtime 20000000x ./metrics/
func BenchmarkCompletionFeed(b *testing.B) {
	const turns = 40
	none, slow := NewRegistry(config.NewStore(), clock.System()), NewRegistry(config.NewStore(), clock.System())
	b.Cleanup(none.Close)
	b.Cleanup(slow.Close)
	feed := slow.Completions()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	ch := feed.Observe(rxgo.WithContext(ctx))
	go func() {
		for range ch {
			time.Sleep(10 * time.Millisecond)
		}
	}()
	awaitSubscriptions(b, slow, 1)

	lanes := []*CommandMetrics{none.Command("bench"), slow.Command("bench")}
	n := max(b.N/turns, 1)
	var ns [2][]float64
	b.ResetTimer()
	for t := range turns {
		for j := range lanes {
			lane := (t + j) % 2 // the lanes take turns going first
			start := time.Now()
			publish(lanes[lane], 16, n)
			ns[lane] = append(ns[lane], float64(time.Since(start).Nanoseconds())/float64(n))
		}
	}
	b.StopTimer()
	ratios := make([]float64, turns)
	for t := range ratios {
		ratios[t] = ns[1][t] / ns[0][t]
	}
	b.ReportMetric(median(ns[0]), "none-ns/op")
	b.ReportMetric(median(ns[1]), "slow-ns/op")
	b.ReportMetric(median(ratios), "slow/none")
	b.ReportMetric(float64(feed.Missed())/float64(n*turns), "missed/op")
}

// median returns the median of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}
