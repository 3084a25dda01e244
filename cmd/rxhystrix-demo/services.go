package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// services are the demo's four dependencies, each behind its own command key.
type services struct {
	rt                               *command.Runtime
	users, inventory, recs, payments *dependency
}

func newServices(rt *command.Runtime, start time.Time) *services {
	return &services{
		rt: rt,
		// Fast and healthy, semaphore isolated, read through the request cache.
		users: &dependency{name: "user", median: 4 * time.Millisecond, tail: 40 * time.Millisecond,
			errorRate: 0.01, start: start},
		// Goes down 5 s into every 45 s and recovers 15 s later: its breaker opens and
		// closes again within the first half minute.
		inventory: &dependency{name: "inventory", median: 15 * time.Millisecond, tail: 150 * time.Millisecond,
			errorRate: 0.02, start: start, outage: periodicOutage(45*time.Second, 5*time.Second, 15*time.Second)},
		// Slow: about a quarter of its calls pass the 250 ms timeout.
		recs: &dependency{name: "recommendations", median: 200 * time.Millisecond, tail: 2 * time.Second,
			errorRate: 0, start: start},
		// Tight semaphore and no fallback: bursts are rejected.
		payments: &dependency{name: "payment", median: 40 * time.Millisecond, tail: 300 * time.Millisecond,
			errorRate: 0.05, start: start},
	}
}

// page is one simulated user request: it reads the user twice (the second read is a
// request-cache hit), then calls the other dependencies.
func (s *services) page(ctx context.Context) {
	user := rand.IntN(1000)
	for range 2 {
		_, _ = s.getUser(ctx, user)
	}
	_, _ = s.checkInventory(ctx)
	_, _ = s.recommendations(ctx)
	_, _ = s.authorize(ctx)
}

func (s *services) getUser(ctx context.Context, id int) (string, error) {
	return command.New(command.Setter{
		Runtime: s.rt, CommandKey: "GetUser", GroupKey: "UserService",
		Properties: config.Overrides{
			"execution.isolation.strategy":                        "SEMAPHORE",
			"execution.isolation.semaphore.maxConcurrentRequests": "50",
		},
	}, s.users.call).
		WithFallback(func(context.Context, error) (string, error) { return "anonymous", nil }).
		WithCacheKey(fmt.Sprint(id)).
		Execute(ctx)
}

func (s *services) checkInventory(ctx context.Context) (string, error) {
	return command.New(command.Setter{
		Runtime: s.rt, CommandKey: "CheckInventory", GroupKey: "Inventory",
		ThreadPoolProperties: config.Overrides{"coreSize": "20"},
	}, s.inventory.call).
		WithFallback(func(context.Context, error) (string, error) { return "stock unknown", nil }).
		Execute(ctx)
}

func (s *services) recommendations(ctx context.Context) (string, error) {
	return command.New(command.Setter{
		Runtime: s.rt, CommandKey: "GetRecommendations", GroupKey: "Recommendations",
		Properties: config.Overrides{"execution.isolation.thread.timeoutInMilliseconds": "250"},
		ThreadPoolProperties: config.Overrides{
			"coreSize": "30", "maxQueueSize": "20", "queueSizeRejectionThreshold": "20",
		},
	}, s.recs.call).
		WithFallback(func(context.Context, error) (string, error) { return "popular items", nil }).
		Execute(ctx)
}

func (s *services) authorize(ctx context.Context) (string, error) {
	return command.New(command.Setter{
		Runtime: s.rt, CommandKey: "AuthorizePayment", GroupKey: "Payments",
		Properties: config.Overrides{
			"execution.isolation.strategy":                        "SEMAPHORE",
			"execution.isolation.semaphore.maxConcurrentRequests": "4",
		},
	}, s.payments.call).Execute(ctx)
}
