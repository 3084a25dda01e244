package dashboard

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestDefaultRegistries: the streams docs/dashboard.md mounts with DefaultRegistries show what
// the process-wide registries hold: a key's counts from metrics.Default, its breaker from
// breaker.Default and its properties from config.Default, dynamic ones included. The key
// is unique to the run: the default registries outlive every test.
func TestDefaultRegistries(t *testing.T) {
	r := DefaultRegistries()
	assert.Same(t, config.Default(), r.Properties)
	assert.Same(t, metrics.Default(), r.Metrics)
	assert.Same(t, breaker.Default(), r.Breakers)

	key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	for name, value := range map[string]string{
		"circuitBreaker.forceOpen":                         "true",
		"execution.isolation.thread.timeoutInMilliseconds": "123",
		"metrics.healthSnapshot.intervalInMilliseconds":    "10",
	} {
		prop := "hystrix.command." + key + "." + name
		require.NoError(t, config.DefaultSource().Set(prop, value))
		t.Cleanup(func() { _ = config.DefaultSource().Apply(nil, []string{prop}) })
	}
	breaker.Default().Get(key, nil)
	m := metrics.Default().Command(key)
	m.MarkComplete(metrics.ExecutionResult{}.WithEvent(metrics.Failure).WithEvent(metrics.FallbackSuccess))

	var got wire.Command
	require.Eventually(t, func() bool {
		for _, c := range r.snapshot().Commands {
			if c.Name == key {
				got = c
				return c.RequestCount == 1
			}
		}
		return false
	}, 5*time.Second, 5*time.Millisecond, "the key's health counts, from metrics.Default on the system clock")
	assert.Equal(t, int64(1), got.ErrorCount)
	assert.True(t, got.IsCircuitBreakerOpen, "forced open in config.Default, seen through breaker.Default")
	assert.Equal(t, int64(123), r.config().Commands[key].Execution.TimeoutInMilliseconds)
}
