// Command failsafe runs one call through failsafe-go's fallback, circuit breaker,
// bulkhead and timeout, for the footprint comparison.
package main

import (
	"fmt"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/fallback"
	"github.com/failsafe-go/failsafe-go/timeout"
)

func main() {
	fmt.Println(failsafe.With[int](fallback.NewWithResult(-1), circuitbreaker.NewWithDefaults[int](),
		bulkhead.New[int](10), timeout.New[int](time.Second)).Get(func() (int, error) { return 1, nil }))
}
