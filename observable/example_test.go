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

// ExampleReplay records a run once and replays it to every subscriber, early or late.
func ExampleReplay() {
	var r observable.Replay
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.Add(rxgo.Of("line 1"))
	r.Add(rxgo.Of("line 2"))
	r.Finish()
	for range 2 {
		var lines []any
		for it := range r.Observable().Observe(rxgo.WithContext(ctx)) {
			lines = append(lines, it.V)
		}
		fmt.Println(lines)
	}
	// Output:
	// [line 1 line 2]
	// [line 1 line 2]
}
