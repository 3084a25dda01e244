package command_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// defaultKey returns a command key no other test or run of this one uses: the default
// registries live as long as the process, so a test of them must not depend on what
// another test left there, nor leave anything another test could see.
func defaultKey(t *testing.T) string {
	return fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
}

// setDefault sets a dynamic property of key on the Default store until the test ends.
func setDefault(t *testing.T, key, name, value string) {
	t.Helper()
	prop := "hystrix.command." + key + "." + name
	require.NoError(t, config.DefaultSource().Set(prop, value))
	t.Cleanup(func() { _ = config.DefaultSource().Apply(nil, []string{prop}) })
}

// TestDefaultRuntimeIsTheDefaultRegistries: a command whose Setter names no Runtime runs
// on command.Default, which is built on the process-wide registries the snippets of the
// README and docs/ use, on the system clock: its outcomes reach metrics.Default, a
// property set on config.Default reaches its breaker in breaker.Default, and hooks.Default
// sees it.
func TestDefaultRuntimeIsTheDefaultRegistries(t *testing.T) {
	rt := command.Default()
	assert.Same(t, rt, command.Default())
	assert.Same(t, config.Default(), rt.Config())
	assert.Same(t, metrics.Default(), rt.Metrics())
	assert.Same(t, breaker.Default(), rt.Breakers())
	assert.Same(t, bulkhead.Default(), command.PoolsOf(rt))
	assert.Same(t, hooks.Default(), rt.Hooks())
	rt.Close() // closing Default does nothing: it keeps working below

	key := defaultKey(t)
	rec := &hooktest.RecordingHook{}
	hooks.Default().SetExecutionHook(rec)
	t.Cleanup(func() { hooks.Default().SetExecutionHook(nil) })
	setDefault(t, key, "metrics.healthSnapshot.intervalInMilliseconds", "10")
	setter := command.Setter{CommandKey: key, GroupKey: "DefaultWiring",
		Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}} // no pool worker outlives the test
	run := func(context.Context) (string, error) { return "v", nil }

	got, err := command.New(setter, run).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit", "OnExecutionSuccess", "OnSuccess"}, rec.Names())
	group, pool := rt.CommandKeys(key)
	assert.Equal(t, "DefaultWiring", group)
	assert.Equal(t, "DefaultWiring", pool)

	m := metrics.Default().Command(key)
	require.Eventually(t, func() bool { return m.HealthCounts().TotalRequests == 1 }, 5*time.Second, 5*time.Millisecond,
		"the default registry rolls on the system clock")
	require.Eventually(t, func() bool { return m.CumulativeCount(metrics.Success) == 1 }, 5*time.Second, 10*time.Millisecond)

	setDefault(t, key, "circuitBreaker.forceOpen", "true")
	assert.True(t, breaker.Default().Get(key, nil).IsOpen(), "config.Default reaches breaker.Default at once")
	_, err = command.New(setter, run).Execute(context.Background())
	assert.True(t, errors.Is(err, command.ErrShortCircuited), "got %v", err)
}
