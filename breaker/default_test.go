package breaker

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestDefaultRegistry: Default is one process-wide registry whose breakers read
// config.Default (dynamic properties too) and listen to metrics.Default on the system
// clock: failures recorded there open them. The key is unique to the run: the default
// registries outlive every test.
func TestDefaultRegistry(t *testing.T) {
	assert.Same(t, Default(), Default())
	key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	for name, value := range map[string]string{
		"circuitBreaker.requestVolumeThreshold":         "2",
		"metrics.healthSnapshot.intervalInMilliseconds": "10",
	} {
		prop := "hystrix.command." + key + "." + name
		require.NoError(t, config.DefaultSource().Set(prop, value))
		t.Cleanup(func() { _ = config.DefaultSource().Apply(nil, []string{prop}) })
	}
	b := Default().Get(key, nil)
	assert.Same(t, b, Default().Get(key, nil))
	assert.Equal(t, Closed, b.State())

	m := metrics.Default().Command(key)
	for range 2 {
		m.MarkComplete(metrics.ExecutionResult{}.WithEvent(metrics.Failure).WithEvent(metrics.FallbackSuccess))
	}
	require.Eventually(t, b.IsOpen, 5*time.Second, time.Millisecond,
		"2 failures in metrics.Default open the breaker (volume 2 from config.Default)")
	assert.Equal(t, Open, b.State())
}
