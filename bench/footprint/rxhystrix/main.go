// Command rxhystrix runs one call through an rxhystrix command (breaker, isolation,
// timeout, fallback and metrics, all defaults), for the footprint comparison.
package main

import (
	"context"
	"fmt"

	"github.com/rxhystrix/rxhystrix/command"
)

func main() {
	fmt.Println(command.New(command.Setter{CommandKey: "K"}, func(context.Context) (int, error) { return 1, nil }).
		WithFallback(func(context.Context, error) (int, error) { return -1, nil }).
		Execute(context.Background()))
}
