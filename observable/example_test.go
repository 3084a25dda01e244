package observable_test

import (
	"context"
	"fmt"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/observable"
)

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
