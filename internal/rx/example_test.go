package rx_test

import (
	"context"
	"fmt"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/internal/rx"
)

// ExampleReplay records a run once and replays it to every subscriber, early or late.
func ExampleReplay() {
	var r rx.Replay
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
