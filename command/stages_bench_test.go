package command

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

// offStages are the properties of a key whose rate limiter, fault injection and graded
// throttling are set but switched off.
var offStages = config.Overrides{
	"rateLimit.enabled": "false", "rateLimit.permitsPerSecond": "300",
	"faultInjection.enabled": "false", "faultInjection.percentage": "1", "faultInjection.fault": "LATENCY",
	"throttle.enabled": "false",
}

// stagesSetter returns the SEMAPHORE setter of key with props added.
func stagesSetter(rt *Runtime, key string, props config.Overrides) Setter {
	s := semaphoreSetter(rt)
	s.CommandKey = key
	s.Properties = config.Overrides{}
	for k, v := range semaphoreSetter(rt).Properties {
		s.Properties[k] = v
	}
	for k, v := range props {
		s.Properties[k] = v
	}
	return s
}

// BenchmarkStagesOff runs Kind.ExecutePooled on a plain key and on one whose rate limiter, fault
// injection and graded throttling are off, in alternating rounds of the same size (so both see the same
// machine, each case first as often as last), and reports the medians over the rounds of
// each one's ns/op, of its difference with plain in the same round, and of off/plain: what
// the switched-off stages cost (nothing: the key's chain is the plain one). The "fault
// not picked" case is fault injection on at 0.0001 %: the cost of the draw.
func BenchmarkStagesOff(b *testing.B) {
	rt := benchRuntime(b)
	ctx := context.Background()
	setters := []Setter{
		semaphoreSetter(rt),
		stagesSetter(rt, "off", offStages),
		stagesSetter(rt, "notPicked", config.Overrides{"faultInjection.enabled": "true", "faultInjection.percentage": "0.0001"}),
		stagesSetter(rt, "limiterAdmits", config.Overrides{"rateLimit.enabled": "true", "rateLimit.permitsPerSecond": "1e9"}),
	}
	kinds := make([]*Kind[int], len(setters)) // each key defined once, as a user does
	for i, s := range setters {
		k, err := Define[int](s)
		if err != nil {
			b.Fatal(err)
		}
		kinds[i] = k.WithFallback(benchFallback)
	}
	names := []string{"plain", "off", "faultNotPicked", "limiterAdmits"}
	const rounds = 50
	ns := make([][rounds]float64, len(setters)) // per round and case
	n := b.N/rounds + 1
	order := []int{0, 1, 2, 3}
	for r := range rounds {
		slices.Reverse(order) // each case runs first as often as last
		if r%4 >= 2 {
			order[1], order[2] = order[2], order[1]
		}
		for _, i := range order {
			k := kinds[i]
			start := time.Now()
			for range n {
				if _, err := k.ExecutePooled(ctx, benchRun); err != nil {
					b.Fatal(err)
				}
			}
			ns[i][r] = float64(time.Since(start).Nanoseconds()) / float64(n)
		}
	}
	// medians over the rounds of each case and of its difference with plain in the same round
	median := func(f func(r int) float64) float64 {
		xs := make([]float64, rounds)
		for r := range xs {
			xs[r] = f(r)
		}
		slices.Sort(xs)
		return (xs[rounds/2-1] + xs[rounds/2]) / 2
	}
	for i, name := range names {
		b.ReportMetric(median(func(r int) float64 { return ns[i][r] }), name+"-ns/op")
		if i > 0 {
			b.ReportMetric(median(func(r int) float64 { return ns[i][r] - ns[0][r] }), name+"-plain-ns")
		}
	}
	b.ReportMetric(median(func(r int) float64 { return ns[1][r] / ns[0][r] }), "off/plain")
}
