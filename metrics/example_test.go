package metrics_test

import (
	"fmt"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func ExampleRegistry() {
	clk := clock.NewFake(time.Unix(0, 0))
	reg := metrics.NewRegistry(config.NewStore(), clk)
	defer reg.Close()

	m := reg.Command("GetUser")
	m.MarkStart()
	failed := metrics.EventCounts{}.Add(metrics.Failure, 1).Add(metrics.FallbackSuccess, 1)
	m.MarkComplete(metrics.NewExecutionResult(failed, true, false, 12*time.Millisecond, 13*time.Millisecond))
	m.MarkComplete(metrics.ExecutionResult{}.WithEvent(metrics.ShortCircuited).WithEvent(metrics.FallbackSuccess))

	reg.Flush()                         // everything published is folded in
	clk.Advance(500 * time.Millisecond) // one healthSnapshot interval
	reg.Flush()
	fmt.Printf("%+v\n", m.HealthCounts())
	// Output: {TotalRequests:1 ErrorCount:1 ErrorPercentage:100}
}
