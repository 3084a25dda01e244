package command_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

func ExampleCommand_Execute() {
	rt := command.NewRuntime() // command.Default() in production code
	defer rt.Close()
	setter := command.Setter{Runtime: rt, CommandKey: "GetUser", GroupKey: "Users",
		Properties: config.Set(config.ExecutionTimeout.Of(500 * time.Millisecond))}

	user, err := command.New(setter, func(ctx context.Context) (string, error) {
		return "", errors.New("connection refused")
	}).WithFallback(func(ctx context.Context, err error) (string, error) {
		return "anonymous", nil
	}).Execute(context.Background())
	fmt.Println(user, err)

	cmd := command.New(setter, func(ctx context.Context) (string, error) { return "alice", nil })
	user, err = cmd.Execute(context.Background())
	fmt.Println(user, err, cmd.ExecutionEvents())
	// Output:
	// anonymous <nil>
	// alice <nil> [SUCCESS]
}

func ExampleCommand_Queue() {
	rt := command.NewRuntime()
	defer rt.Close()
	setter := command.Setter{Runtime: rt, CommandKey: "Price"}

	future, err := command.New(setter, func(ctx context.Context) (int, error) { return 42, nil }).
		Queue(context.Background()) // err: a short circuit or rejection without fallback
	if err != nil {
		fmt.Println("refused:", err)
		return
	}
	price, err := future.Get(context.Background())
	fmt.Println(price, err)
	// Output: 42 <nil>
}

func ExampleDefine() {
	rt := command.NewRuntime()
	defer rt.Close()
	_, err := command.Define[int](command.Setter{Runtime: rt, CommandKey: "Price",
		Properties: config.Overrides{"execution.isolation.thread.timeoutInMiliseconds": "300"}})
	fmt.Println(err != nil) // the misspelt property is reported where the key is defined

	price, err := command.Define[int](command.Setter{Runtime: rt, CommandKey: "Price",
		Properties: config.Set(config.ExecutionTimeout.Of(300 * time.Millisecond))})
	if err != nil {
		panic(err)
	}
	v, err := price.New(func(ctx context.Context) (int, error) { return 42, nil }).Execute(context.Background())
	fmt.Println(v, err)
	// Output:
	// true
	// 42 <nil>
}

func ExampleCommand_Observe() {
	rt := command.NewRuntime()
	defer rt.Close()
	setter := command.Setter{Runtime: rt, CommandKey: "Greeting"}

	obs := command.New(setter, func(ctx context.Context) (string, error) { return "hello", nil }).
		Observe(context.Background()) // started already; replays to every subscriber
	shout := obs.Map(func(_ context.Context, v any) (any, error) { return v.(string) + "!", nil })
	for it := range shout.Observe() {
		fmt.Println(it.V)
	}
	for it := range obs.Observe() {
		fmt.Println(it.V)
	}
	// Output:
	// hello!
	// hello
}

func ExampleStream() {
	rt := command.NewRuntime()
	defer rt.Close()
	setter := command.Setter{Runtime: rt, CommandKey: "Tail"}

	st := command.NewStream[string](setter, func(ctx context.Context) rxgo.Observable {
		return rxgo.Just("line 1", "line 2", errors.New("disk gone"))()
	}).WithFallback(func(ctx context.Context, err error) rxgo.Observable {
		return rxgo.Just("(truncated)")()
	})
	for line, err := range st.Values(context.Background()) {
		if err != nil {
			fmt.Println("failed:", err)
			break
		}
		fmt.Println(line)
	}
	fmt.Println(st.ExecutionEvents())
	// Output:
	// line 1
	// line 2
	// (truncated)
	// [EMIT EMIT FAILURE FALLBACK_EMIT FALLBACK_SUCCESS MID_STREAM_FAILURE]
}

func ExampleCommand_WithCacheKey() {
	rt := command.NewRuntime()
	defer rt.Close()
	setter := command.Setter{Runtime: rt, CommandKey: "GetUser"}
	ctx, reqCtx := cache.NewRequestContext(context.Background()) // one per incoming request
	defer reqCtx.Close()

	calls := 0
	getUser := func(id string) *command.Command[string] {
		return command.New(setter, func(ctx context.Context) (string, error) {
			calls++
			return "user " + id, nil
		}).WithCacheKey(id)
	}
	first := getUser("7")
	a, _ := first.Execute(ctx)
	second := getUser("7")
	b, _ := second.Execute(ctx)
	fmt.Println(a, b, calls)
	fmt.Println(first.ExecutionEvents(), second.ExecutionEvents(), second.IsResponseFromCache())
	// Output:
	// user 7 user 7 1
	// [SUCCESS] [SUCCESS RESPONSE_FROM_CACHE] true
}
