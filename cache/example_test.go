package cache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rxhystrix/rxhystrix/cache"
)

// getUser stands in for a command: it logs itself and shares executions by user id.
type getUser struct {
	hit bool
}

func (g *getUser) CommandKey() string { return "GetUser" }
func (g *getUser) LogEvents() []cache.LogEvent {
	if g.hit {
		return []cache.LogEvent{{Name: "SUCCESS"}, {Name: "RESPONSE_FROM_CACHE"}}
	}
	return []cache.LogEvent{{Name: "SUCCESS"}}
}
func (g *getUser) ExecutionTime() time.Duration {
	if g.hit {
		return -1 // did not run
	}
	return 12 * time.Millisecond
}

func run(ctx context.Context, id string) string {
	rc := cache.FromContext(ctx)
	g := &getUser{}
	rc.Log().Add(g)
	v, hit := rc.Cache().GetOrStart(g.CommandKey(), id, func() any { return "user " + id })
	g.hit = hit
	return v.(string)
}

func ExampleNewRequestContext() {
	ctx, rc := cache.NewRequestContext(context.Background())
	defer rc.Close()

	fmt.Println(run(ctx, "42"))
	fmt.Println(run(ctx, "42"))
	fmt.Println(rc.Log().String())
	// Output:
	// user 42
	// user 42
	// GetUser[SUCCESS][12ms], GetUser[SUCCESS, RESPONSE_FROM_CACHE][0ms]
}
