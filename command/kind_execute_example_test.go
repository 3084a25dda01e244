package command_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

func ExampleKind_ExecutePooled() {
	rt := command.NewRuntime() // command.Default() in production code
	defer rt.Close()
	kind, err := command.Define[string](command.Setter{Runtime: rt, CommandKey: "GetUser",
		Properties: config.Set(config.ExecutionTimeout.Of(500 * time.Millisecond))})
	if err != nil {
		fmt.Println(err)
		return
	}
	users := kind.WithFallback(func(ctx context.Context, err error) (string, error) {
		return "anonymous", nil
	})

	// The run's context is valid until run returns: the execution is reused after it.
	user, err := users.ExecutePooled(context.Background(), func(ctx context.Context) (string, error) {
		return "", errors.New("connection refused")
	})
	fmt.Println(user, err)
	user, err = users.ExecutePooled(context.Background(), func(ctx context.Context) (string, error) {
		return "alice", ctx.Err()
	})
	fmt.Println(user, err)
	// Output:
	// anonymous <nil>
	// alice <nil>
}
