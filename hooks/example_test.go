package hooks_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rxhystrix/rxhystrix/hooks"
)

// errorCounter overrides one method and inherits the rest from NoopHook.
type errorCounter struct {
	hooks.NoopHook
	errors int
}

func (c *errorCounter) OnError(context.Context, hooks.Info, error) { c.errors++ }

func ExampleRegistry() {
	reg := hooks.NewRegistry()
	counter := &errorCounter{}
	reg.SetExecutionHook(counter)

	// What a command does once per execution:
	h := reg.ExecutionHook()
	if !hooks.IsNoop(h) {
		h.OnError(context.Background(), hooks.Info{CommandKey: "GetUser"}, errors.New("boom"))
	}
	fmt.Println(counter.errors)

	reg.SetExecutionHook(nil)
	fmt.Println(hooks.IsNoop(reg.ExecutionHook()))
	// Output:
	// 1
	// true
}
