package command

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

// offStages are the properties of a key whose rate limiter and fault injection are set
// but switched off.
var offStages = config.Overrides{
	"rateLimit.enabled": "false", "rateLimit.permitsPerSecond": "300",
	"faultInjection.enabled": "false", "faultInjection.percentage": "1", "faultInjection.fault": "LATENCY",
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

// BenchmarkStagesOff runs plain Execute and Execute on a key whose rate limiter and fault
// injection are off, in alternating rounds of the same size (so both see the same
// machine, each case first as often as last), and reports each one's ns/op, their ratio and the difference: what the
// switched-off stages cost (nothing: the key's chain is the plain one). The "fault
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
	names := []string{"plain", "off", "faultNotPicked", "limiterAdmits"}
	elapsed := make([]time.Duration, len(setters))
	const rounds = 50
	n := b.N/rounds + 1
	order := []int{0, 1, 2, 3}
	for r := range rounds {
		slices.Reverse(order) // each case runs first as often as last
		if r%4 >= 2 {
			order[1], order[2] = order[2], order[1]
		}
		for _, i := range order {
			s := setters[i]
			start := time.Now()
			for range n {
				if _, err := New(s, benchRun).WithFallback(benchFallback).Execute(ctx); err != nil {
					b.Fatal(err)
				}
			}
			elapsed[i] += time.Since(start)
		}
	}
	per := func(i int) float64 { return float64(elapsed[i].Nanoseconds()) / float64(n*rounds) }
	for i, name := range names {
		b.ReportMetric(per(i), name+"-ns/op")
	}
	b.ReportMetric(per(1)/per(0), "off/plain")
	b.ReportMetric(per(1)-per(0), "off-plain-ns")
	b.ReportMetric(per(2)-per(0), "faultNotPicked-plain-ns")
	b.ReportMetric(per(3)-per(0), "limiterAdmits-plain-ns")
}
