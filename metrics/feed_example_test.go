package metrics_test

import (
	"context"
	"fmt"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// ExampleRegistry_Completions follows the timeouts of every command key with RxGo
// operators: Filter keeps the completions that timed out, Map describes them.
func ExampleRegistry_Completions() {
	reg := metrics.NewRegistry(config.NewStore(), clock.System())
	defer reg.Close() // ends the subscription too
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	timeouts := reg.Completions().
		Filter(func(v any) bool { return v.(metrics.Completion).Result.Contains(metrics.Timeout) }).
		Map(func(_ context.Context, v any) (any, error) {
			c := v.(metrics.Completion)
			return fmt.Sprintf("%s timed out after %v", c.Key, c.Result.ExecutionLatency()), nil
		})
	ch := timeouts.Observe(rxgo.WithContext(ctx))

	// Commands complete meanwhile; the feed delivers what completes once its
	// subscription has started.
	go func() {
		m := reg.Command("GetUser")
		ok := metrics.ExecutionResult{}.WithEvent(metrics.Success)
		events := metrics.EventCounts{}.Add(metrics.Timeout, 1).Add(metrics.FallbackSuccess, 1)
		timedOut := metrics.NewExecutionResult(events, false, false, time.Second, time.Second)
		for ctx.Err() == nil {
			m.MarkComplete(ok)
			m.MarkComplete(timedOut)
			time.Sleep(time.Millisecond)
		}
	}()
	for range 2 {
		fmt.Println((<-ch).V)
	}
	// Output:
	// GetUser timed out after 1s
	// GetUser timed out after 1s
}
