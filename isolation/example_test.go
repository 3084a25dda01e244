package isolation_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/isolation"
)

// A fallback tells a full pool from other failures by its cause.
func ExampleRejectedError() {
	store := config.NewStore()
	defer store.Close()
	rt := command.NewRuntime(command.WithConfig(store))
	defer rt.Close()
	oneWorker := command.Setter{Runtime: rt, CommandKey: "Charge", ThreadPoolKey: "payments",
		ThreadPoolProperties: config.ThreadPoolOverrides{"coreSize": "1"}}
	charge := func(context.Context) (string, error) { return "charged", nil }
	later := func(_ context.Context, err error) (string, error) {
		var r *isolation.RejectedError
		if errors.As(err, &r) { // errors.Is(err, isolation.ErrRejected) holds too
			return "queued for later: pool " + r.Pool + " is full", nil
		}
		return "", err
	}

	_, _ = command.New(oneWorker, func(ctx context.Context) (string, error) {
		// The pool's one worker runs this: a second charge now is refused.
		got, err := command.New(oneWorker, charge).WithFallback(later).Execute(ctx)
		fmt.Println(got, err)
		return "charged", nil
	}).Execute(context.Background())
	// Output: queued for later: pool payments is full <nil>
}
