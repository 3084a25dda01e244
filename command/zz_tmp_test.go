package command

import (
	"context"
	"errors"
	"testing"
)

func BenchmarkZZKindFailure(b *testing.B) {
	rt := NewRuntime()
	defer rt.Close()
	k, _ := Define[int](Setter{Runtime: rt, CommandKey: "f", Properties: map[string]string{"circuitBreaker.enabled": "false", "execution.isolation.strategy": "SEMAPHORE"}})
	k = k.WithFallback(benchFallback)
	e := errors.New("x")
	run := func(context.Context) (int, error) { return 0, e }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		k.Execute(ctx, run)
	}
}
