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
//
// The 10 ms snapshots that config.Default sets are told from the built-in 500 ms by a
// second key on the built-in interval, rolled by the same timer: while the key gets 20
// snapshots the other gets far fewer (on the same interval both would get the same), and
// no bound in real time is needed, so a busy machine that makes the timer late cannot
// fail the test.
func TestDefaultRegistry(t *testing.T) {
	r := Default()
	assert.Same(t, r, Default())
	key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	prop := "hystrix.command." + key + ".metrics.healthSnapshot.intervalInMilliseconds"
	require.NoError(t, config.DefaultSource().Set(prop, "10"))
	t.Cleanup(func() { _ = config.DefaultSource().Apply(nil, []string{prop}) })

	m, builtin := r.Command(key), r.Command(key+"-builtin")
	assert.Same(t, m, r.Command(key))
	assert.Contains(t, r.Commands(), m)
	var snapshots, builtinSnapshots, builtinAtTwenty atomic.Int64
	twenty := make(chan struct{})
	defer builtin.OnHealthCounts(func(HealthCounts) { builtinSnapshots.Add(1) })()
	defer m.OnHealthCounts(func(HealthCounts) {
		if snapshots.Add(1) == 20 {
			builtinAtTwenty.Store(builtinSnapshots.Load())
			close(twenty)
		}
	})()
	builtin.MarkComplete(result(Success))
	m.MarkComplete(result(Failure, FallbackSuccess))
	m.MarkComplete(result(Success))
	require.Eventually(t, func() bool { return m.HealthCounts() == HealthCounts{2, 1, 50} },
		30*time.Second, time.Millisecond, "a health snapshot on the system clock")
	select {
	case <-twenty:
	case <-time.After(30 * time.Second):
		t.Fatalf("%d snapshots in 30 s", snapshots.Load())
	}
	assert.Less(t, builtinAtTwenty.Load(), int64(10),
		"snapshots every 10 ms, as config.Default says, not every 500 ms")
}
