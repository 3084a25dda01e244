package hystrixtest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// A breaker's story in virtual time: the user service fails for 2 s, GetUser is called
// 100 times a second for 8 s, and the test reads what happened, call by call, and the
// counts, exact, at once.
func Example() {
	k := hystrixtest.New()
	defer k.Close()
	getUser, err := command.Define[string](command.Setter{Runtime: k.Runtime(), CommandKey: "GetUser",
		Properties: config.Set(config.ExecutionIsolationStrategy.Of(config.Semaphore))})
	if err != nil {
		fmt.Println(err)
		return
	}
	users := hystrixtest.NewDependency(k, "Ada",
		hystrixtest.Until(2*time.Second, hystrixtest.Fail(errors.New("user service down")), hystrixtest.OK()))
	anonymous := func(context.Context, error) (string, error) { return "anonymous", nil }

	for range 800 {
		_, _ = getUser.New(users.Run).WithFallback(anonymous).Execute(context.Background())
		k.Advance(10 * time.Millisecond)
	}
	k.AdvanceUntilQuiet() // without it the counts of the last second would read 0

	for _, run := range k.Recorder().Runs("GetUser") {
		fmt.Printf("%v from %v to %v\n", run, run.First, run.Last)
	}
	m := k.Runtime().Metrics().Command("GetUser")
	fmt.Println("calls that reached the service:", users.Calls())
	fmt.Println("short-circuited, counted:", m.CumulativeCount(metrics.ShortCircuited))
	// Output:
	// [FAILURE, FALLBACK_SUCCESS] x50 from 0s to 490ms
	// [SHORT_CIRCUITED, FALLBACK_SUCCESS] x500 from 500ms to 5.49s
	// [SUCCESS] x250 from 5.5s to 7.99s
	// calls that reached the service: 300
	// short-circuited, counted: 500
}

// Callers in flight: two calls hang in the dependency, so a third finds the semaphore
// full; the clock then moves to their 1 s timeout.
func ExampleKit_Go() {
	k := hystrixtest.New()
	defer k.Close()
	search, err := command.Define[string](command.Setter{Runtime: k.Runtime(), CommandKey: "Search",
		Properties: config.Set(
			config.ExecutionIsolationStrategy.Of(config.Semaphore),
			config.ExecutionMaxConcurrentRequests.Of(2),
		)})
	if err != nil {
		fmt.Println(err)
		return
	}
	backend := hystrixtest.NewDependency(k, "results", hystrixtest.Hang())
	for range 2 {
		k.Go(func(ctx context.Context) {
			_, err := search.New(backend.Run).Execute(ctx)
			fmt.Println(k.Elapsed(), errors.Is(err, command.ErrTimeout))
		})
	}
	k.Settle() // both callers wait in the backend now
	_, err = search.New(backend.Run).Execute(context.Background())
	fmt.Println(errors.Is(err, command.ErrSemaphoreRejected))
	k.AdvanceUntilQuiet()
	// Output:
	// true
	// 1s true
	// 1s true
}
