//go:build !race

package command

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/config"
)

// TestStagesAllocations pins what the rate limiter and fault injection stages allocate per
// Execute: off, they are not in the chain and Execute allocates its Command alone, as a
// key without them; on, an admitted call or a fault not picked adds nothing, and an
// injected ERROR allocates what a run failing with that error does (its error is made
// once).
func TestStagesAllocations(t *testing.T) {
	rt := NewRuntime()
	defer rt.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		props config.Overrides
	}{
		{"plain", nil},
		{"both off", offStages},
		{"limiter admits", config.Overrides{"rateLimit.enabled": "true", "rateLimit.permitsPerSecond": "1e9"}},
		{"fault not picked", config.Overrides{"faultInjection.enabled": "true", "faultInjection.percentage": "0.0001"}},
	} {
		s := stagesSetter(rt, tc.name, tc.props)
		allocs := testing.AllocsPerRun(1000, func() { _, _ = New(s, benchRun).WithFallback(benchFallback).Execute(ctx) })
		assert.LessOrEqual(t, allocs, 1.0, tc.name)
	}
	injected := stagesSetter(rt, "ERROR injected", config.Overrides{"faultInjection.enabled": "true",
		"faultInjection.percentage": "100", "circuitBreaker.enabled": "false"})
	failing := stagesSetter(rt, "failing", config.Overrides{"circuitBreaker.enabled": "false"})
	errRun := faultErrors[config.FaultError]
	failRun := func(context.Context) (int, error) { return 0, errRun }
	assert.Equal(t,
		testing.AllocsPerRun(1000, func() { _, _ = New(failing, failRun).WithFallback(benchFallback).Execute(ctx) }),
		testing.AllocsPerRun(1000, func() { _, _ = New(injected, benchRun).WithFallback(benchFallback).Execute(ctx) }),
		"ERROR injected")
	assert.Same(t, rt.lookup("plain").currentChain(), rt.lookup("both off").currentChain(),
		"a key with both stages off runs the plain chain")
}
