package config_test

import (
	"fmt"

	"github.com/rxhystrix/rxhystrix/config"
)

func ExampleStore_Command() {
	dynamic := config.NewMemorySource()
	store := config.NewStore(dynamic)
	defer store.Close()

	props, err := store.Command("GetUser", config.Overrides{
		"execution.isolation.thread.timeoutInMilliseconds": "500",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(props.ExecutionTimeout.Get()) // set in code

	dynamic.Set("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds", "250")
	fmt.Println(props.ExecutionTimeout.Get()) // dynamic key value beats code

	dynamic.Set("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds", "soon")
	fmt.Println(props.ExecutionTimeout.Get()) // invalid: previous value stays

	for _, s := range props.Settings()[:2] {
		fmt.Println(s.FullName, "=", s.Value)
	}
	// Output:
	// 500ms
	// 250ms
	// 250ms
	// hystrix.command.GetUser.execution.isolation.strategy = THREAD
	// hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds = 250
}
