package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines, except hystrix-go's per-circuit monitors, which
// never stop by design (one metric exchange and one pool-metrics goroutine per name).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/afex/hystrix-go/hystrix.(*metricExchange).Monitor"),
		goleak.IgnoreAnyFunction("github.com/afex/hystrix-go/hystrix.(*poolMetrics).Monitor"),
	)
}
