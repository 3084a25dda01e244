package dashboard

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// instanceStream serves a /hystrix.stream of one command every 20 ms.
func instanceStream(t *testing.T, success int64, open bool) *httptest.Server {
	t.Helper()
	h := newStreamHandler(func() wire.Snapshot {
		return wire.Snapshot{Commands: []wire.Command{{Name: "GetUser", Group: "Users", IsCircuitBreakerOpen: open,
			RequestCount: success, CommandCounts: wire.CommandCounts{Success: success},
			LatencyExecute: wire.Percentiles{2: 2}}},
			ThreadPools: []wire.ThreadPool{{Name: "Users", CurrentPoolSize: 4}}}
	}, WithInterval(20*time.Millisecond))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestFleetSumsItsStreamsAndFollowsTheSet(t *testing.T) {
	a, b := instanceStream(t, 10, false), instanceStream(t, 5, true)
	f := NewFleet(nil)
	t.Cleanup(f.Close) // before the servers close: their streams end first
	f.SetStreams(map[string]string{"a": a.URL, "b": b.URL})

	sum := func(want int64) map[string]any {
		var cmd map[string]any
		require.Eventually(t, func() bool {
			frames := f.sum(time.Now())
			if len(frames) != 2 || frames[0]["type"] != wire.TypeCommand {
				return false
			}
			cmd = frames[0]
			return cmd["reportingHosts"] == want
		}, patience, 5*time.Millisecond)
		return cmd
	}
	cmd := sum(2)
	assert.Equal(t, int64(15), cmd["rollingCountSuccess"])
	assert.Equal(t, map[string]int64{"true": 1, "false": 1}, cmd["isCircuitBreakerOpen"])
	assert.Equal(t, int64(4), cmd["latencyExecute"].(map[string]any)["50"])
	assert.Equal(t, "GetUser", cmd["name"])
	assert.Equal(t, "Users", cmd["group"])
	assert.Equal(t, map[string]string{"a": a.URL, "b": b.URL}, f.Instances())

	f.SetStreams(map[string]string{"a": a.URL})
	cmd = sum(1)
	assert.Equal(t, int64(10), cmd["rollingCountSuccess"], "a dropped instance leaves the sums at once")
	assert.Equal(t, map[string]int64{"true": 0, "false": 1}, cmd["isCircuitBreakerOpen"])
}

func TestFleetLostStreamLeavesTheSums(t *testing.T) {
	a, b := instanceStream(t, 10, false), instanceStream(t, 5, false)
	f := NewFleet(nil)
	t.Cleanup(f.Close)
	f.SetStreams(map[string]string{"a": a.URL, "b": b.URL})
	require.Eventually(t, func() bool {
		fr := f.sum(time.Now())
		return len(fr) == 2 && fr[0]["rollingCountSuccess"] == int64(15)
	}, patience, 5*time.Millisecond)
	b.CloseClientConnections()
	b.Close()
	require.Eventually(t, func() bool {
		fr := f.sum(time.Now())
		return len(fr) == 2 && fr[0]["rollingCountSuccess"] == int64(10)
	}, patience, 5*time.Millisecond, "a killed instance's frames go with its connection")
}

func TestFleetStreamHandlerServesTheSum(t *testing.T) {
	a := instanceStream(t, 7, false)
	f := NewFleet(nil)
	t.Cleanup(f.Close)
	f.SetStreams(map[string]string{"a": a.URL})
	agg := newTestServer(t, f.StreamHandler(WithInterval(20*time.Millisecond)))
	c := agg.connect()
	var frames []string
	require.Eventually(t, func() bool { frames = c.tick(t); return len(frames) == 2 }, patience, time.Millisecond)
	assert.Contains(t, frames[0], `"type":"HystrixCommand"`)
	assert.Contains(t, frames[0], `"rollingCountSuccess":7`)
	assert.Contains(t, frames[0], `"isCircuitBreakerOpen":{"false":1,"true":0}`)
	assert.Contains(t, frames[1], `"type":"HystrixThreadPool"`)
}
