package observable_test

import (
	"context"
	"fmt"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/observable"
)

// ExampleBuckets counts events per second on a fake clock. BlockUntil before each
// Advance waits for the operator to arm its timer, which makes the output deterministic.
func ExampleBuckets() {
	clk := clock.NewFake(time.Unix(0, 0))
	bus := observable.NewBus[string](64)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	counts := observable.Buckets(bus.Subscribe, time.Second, clk,
		func(time.Time) int { return 0 },
		func(n int, _ string) int { return n + 1 },
	).Observe(rxgo.WithContext(ctx))

	clk.BlockUntil(1) // subscribed to the bus, timer armed
	bus.Publish("success")
	bus.Publish("failure")
	clk.Advance(3 * time.Second) // one full bucket, then two empty ones
	for range 3 {
		fmt.Println((<-counts).V)
	}
	// Output:
	// 2
	// 0
	// 0
}

// ExampleTimeout falls back when the work takes too long.
func ExampleTimeout() {
	clk := clock.NewFake(time.Unix(0, 0))
	slow := observable.Defer(func(ctx context.Context) (string, error) {
		<-ctx.Done() // cancelled by the timeout
		return "", ctx.Err()
	})
	obs := observable.Timeout(slow, time.Second, clk).
		OnErrorResumeNext(func(err error) rxgo.Observable {
			return observable.Defer(func(context.Context) (string, error) { return "fallback after " + err.Error(), nil })
		})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := observable.ToFuture[string](ctx, obs)
	clk.BlockUntil(1)
	clk.Advance(time.Second)
	fmt.Println(f.Get(ctx))
	// Output: fallback after observable: timeout <nil>
}
