// Command gobreaker runs one call through a sony/gobreaker circuit breaker, for the
// footprint comparison.
package main

import (
	"fmt"

	"github.com/sony/gobreaker/v2"
)

func main() {
	cb := gobreaker.NewCircuitBreaker[int](gobreaker.Settings{Name: "K"})
	fmt.Println(cb.Execute(func() (int, error) { return 1, nil }))
}
