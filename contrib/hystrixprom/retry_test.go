package hystrixprom

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// The retry's events are counters like the others, from their first occurrence.
func TestCollectorExportsRetriesAndTheBudget(t *testing.T) {
	rt, clk := newRuntime(t)
	c := New(rt)
	defer c.Close()
	for range 11 { // a budget of 1 a second over its 1 s window: 1 retry, then none
		_, _ = command.New(command.Setter{Runtime: rt, CommandKey: "Retried", GroupKey: "Shop",
			Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE", "retry.maxAttempts": "2",
				"retry.backoffInMilliseconds": "0", "budget.percent": "0", "budget.minPerSecond": "1"}},
			func(context.Context) (string, error) { return "", errors.New("down") }).
			WithFallback(func(context.Context, error) (string, error) { return "fb", nil }).
			Execute(context.Background())
	}
	advance(rt, clk, 2*time.Second)
	events := byLabel(t, c, "hystrix_command_events_total", "event")
	assert.Equal(t, 1.0, events["retry"])
	assert.Equal(t, 10.0, events["budget_exhausted"])
	assert.Equal(t, 12.0, events["failure"], "each attempt")
	assert.Equal(t, 11.0, events["fallback_success"], "each command once")
}

// A hedge is a counter like the others; the attempt it beat is a CANCELLED completion.
func TestCollectorExportsHedges(t *testing.T) {
	rt, clk := newRuntime(t)
	c := New(rt)
	defer c.Close()
	for range 3 {
		var calls atomic.Int32
		_, err := command.New(command.Setter{Runtime: rt, CommandKey: "Hedged", GroupKey: "Shop",
			Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE", "hedge.maxHedges": "1",
				"hedge.delayInMilliseconds": "10", "execution.timeout.enabled": "false"}},
			func(ctx context.Context) (string, error) {
				if calls.Add(1) == 1 {
					clk.Advance(10 * time.Millisecond) // the hedge's delay passes
					<-ctx.Done()
					return "", ctx.Err()
				}
				return "v", nil
			}).Execute(context.Background())
		assert.NoError(t, err)
	}
	assert.Eventually(t, func() bool {
		advance(rt, clk, 2*time.Second)
		return byLabel(t, c, "hystrix_command_events_total", "event")["cancelled"] == 3
	}, 5*time.Second, time.Millisecond, "the losers count themselves")
	events := byLabel(t, c, "hystrix_command_events_total", "event")
	assert.Equal(t, 3.0, events["hedge"])
	assert.Equal(t, 3.0, events["success"])
}
