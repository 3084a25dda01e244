package metrics

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
)

// TestDefaultRegistry: Default is one process-wide registry that reads config.Default
// (dynamic properties too) and rolls on the system clock. The key is unique to the run:
// the default registry outlives every test.
func TestDefaultRegistry(t *testing.T) {
	r := Default()
	assert.Same(t, r, Default())
	key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	prop := "hystrix.command." + key + ".metrics.healthSnapshot.intervalInMilliseconds"
	require.NoError(t, config.DefaultSource().Set(prop, "10"))
	t.Cleanup(func() { _ = config.DefaultSource().Delete(prop) })

	m := r.Command(key)
	assert.Same(t, m, r.Command(key))
	assert.Contains(t, r.Commands(), m)
	var snapshots atomic.Int64
	cancel := m.OnHealthCounts(func(HealthCounts) { snapshots.Add(1) })
	defer cancel()
	m.MarkComplete(result(Failure, FallbackSuccess))
	m.MarkComplete(result(Success))
	require.Eventually(t, func() bool { return m.HealthCounts() == HealthCounts{2, 1, 50} },
		5*time.Second, time.Millisecond, "a health snapshot on the system clock")
	time.Sleep(300 * time.Millisecond)
	// config.Default's 10 ms: about 30 snapshots (the built-in 500 ms would take at most 1)
	assert.GreaterOrEqual(t, snapshots.Load(), int64(5), "snapshots every 10 ms, as config.Default says")
}
