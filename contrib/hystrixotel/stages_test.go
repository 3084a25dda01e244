package hystrixotel

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// The rate limiter's refusals and the fault injection stage's picks are counted by event
// like the others.
func TestMetricsCountTheStagesEvents(t *testing.T) {
	e := newEnv(t)
	s := command.Setter{Runtime: e.rt, CommandKey: "Limited", GroupKey: "Shop", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "circuitBreaker.enabled": "false",
		"rateLimit.enabled": "true", "rateLimit.permitsPerSecond": "1", "rateLimit.burst": "2",
		"faultInjection.enabled": "true", "faultInjection.percentage": "100"}}
	for range 3 {
		_, _ = command.New(s, func(context.Context) (string, error) { return "v", nil }).
			WithFallback(func(context.Context, error) (string, error) { return "fb", nil }).
			Execute(context.Background())
	}
	e.clk.Advance(time.Second)
	e.rt.Metrics().Flush()
	assert.Equal(t, map[string]int64{"failure": 2, "fallback_success": 3, "fault_injected": 2, "rate_limited": 1,
		"success": 0, "timeout": 0, "short_circuited": 0, "thread_pool_rejected": 0, "semaphore_rejected": 0},
		e.events("Limited"))
}
