package dashboard

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

func newSampleStream(t *testing.T, opts ...Option) (*testServer, *clock.Fake) {
	clk := clock.NewFake(epoch)
	h := newStreamHandler(sampleSnapshot, append([]Option{withClock(clk)}, opts...)...)
	return newTestServer(t, h), clk
}

func TestStreamFrameShapes(t *testing.T) {
	s, clk := newSampleStream(t)
	c := s.connect()
	advance(clk, 1, sse.DefaultInterval)
	frames := c.tick(t)
	require.Len(t, frames, 4, "two commands, one pool, one collapser")

	now := float64(epoch.Add(sse.DefaultInterval).UnixMilli())
	cmd := assertShape(t, frames[0])
	assert.Equal(t, "HystrixCommand", cmd["type"])
	assert.Equal(t, now, cmd["currentTime"])
	assert.Equal(t, 1.0, cmd["reportingHosts"], "0 is written as 1")
	assert.Nil(t, cmd["propertyValue_executionIsolationThreadPoolKeyOverride"], "unset: null")
	assert.Equal(t, map[string]any{"0": 1.0, "25": 5.0, "50": 10.0, "75": 20.0, "90": 40.0,
		"95": 60.0, "99": 90.0, "99.5": 95.0, "100": 120.0}, cmd["latencyExecute"])

	second := assertShape(t, frames[1])
	assert.Equal(t, "UsersOverride", second["propertyValue_executionIsolationThreadPoolKeyOverride"])
	assert.Equal(t, 3.0, second["reportingHosts"], "a provider's host count is kept")

	pool := assertShape(t, frames[2])
	assert.Equal(t, "HystrixThreadPool", pool["type"])
	assert.Equal(t, now, pool["currentTime"])

	col := assertShape(t, frames[3])
	assert.Equal(t, "HystrixCollapser", col["type"])
	assert.Equal(t, now, col["currentTime"])
	assert.Equal(t, float64(wire.UnboundedBatch), col["propertyValue_maxRequestsInBatch"])
}

func TestStreamGoldenSample(t *testing.T) {
	s, clk := newSampleStream(t)
	c := s.connect()
	advance(clk, 1, sse.DefaultInterval)
	golden(t, "sample.stream", c.rawTick(t))
}

func TestStreamPacesByInterval(t *testing.T) {
	var calls atomic.Int32
	snap := func() wire.Snapshot { calls.Add(1); return wire.Snapshot{Collapsers: []wire.Collapser{{Name: "C"}}} }
	clk := clock.NewFake(epoch)
	s := newTestServer(t, newStreamHandler(snap, withClock(clk), WithInterval(100*time.Millisecond)))
	c := s.connect()

	advance(clk, 1, 99*time.Millisecond)
	clk.BlockUntil(1)
	assert.Zero(t, calls.Load(), "nothing before the first interval")
	for i := 1; i <= 3; i++ {
		advance(clk, 1, time.Millisecond) // first tick at 100ms, later ones every 100ms
		frames := c.tick(t)
		require.Len(t, frames, 1)
		var col wire.Collapser
		require.NoError(t, json.Unmarshal([]byte(frames[0]), &col))
		assert.Equal(t, clk.Now().UnixMilli(), col.CurrentTime)
		assert.Equal(t, int32(i), calls.Load(), "one snapshot per interval")
		if i < 3 {
			advance(clk, 1, 99*time.Millisecond)
		}
	}
}

func TestStreamEmptySnapshotStillPings(t *testing.T) {
	clk := clock.NewFake(epoch)
	s := newTestServer(t, newStreamHandler(func() wire.Snapshot { return wire.Snapshot{} }, withClock(clk)))
	c := s.connect()
	advance(clk, 1, sse.DefaultInterval)
	assert.Equal(t, "ping: \n\n", c.rawTick(t))
}

func TestUtilizationStream(t *testing.T) {
	clk := clock.NewFake(epoch)
	p := func() wire.Utilization {
		return wire.Utilization{
			Commands: map[string]wire.CommandUtilization{"GetUser": {ActiveCount: 2}},
			ThreadPools: map[string]wire.ThreadPoolUtilization{"Users": {
				ActiveCount: 3, QueueSize: 1, CorePoolSize: 10, PoolSize: 4, Utilization: 30}},
		}
	}
	h := newUtilizationHandler(p, withClock(clk))
	assert.Equal(t, sse.DefaultUtilizationInterval, h.s.Settings().Interval)
	frame := onlyFrame(t, h, clk)
	assertShape(t, frame)
	assert.JSONEq(t, `{"type":"HystrixUtilization","commands":{"GetUser":{"activeCount":2}},
		"threadpools":{"Users":{"activeCount":3,"queueSize":1,"corePoolSize":10,"poolSize":4,"utilization":30}}}`,
		frame)
}

func TestConfigStream(t *testing.T) {
	clk := clock.NewFake(epoch)
	override := "Special"
	p := func() wire.Config {
		return wire.Config{Commands: map[string]wire.CommandConfig{"GetUser": {GroupKey: "Users", ThreadPoolKey: "Users",
			Execution:  wire.ExecutionConfig{IsolationStrategy: "THREAD", ThreadPoolKeyOverride: &override},
			Properties: map[string]string{"execution.isolation.strategy": "THREAD"}}}}
	}
	h := newConfigHandler(p, withClock(clk))
	assert.Equal(t, sse.DefaultConfigInterval, h.s.Settings().Interval)
	frame := onlyFrame(t, h, clk)
	assertShape(t, frame)
	assert.JSONEq(t, `{"type":"HystrixConfig","commands":{"GetUser":{"threadPoolKey":"Users","groupKey":"Users",
		"execution":{"isolationStrategy":"THREAD","threadPoolKeyOverride":"Special","requestCacheEnabled":false,
			"requestLogEnabled":false,"timeoutEnabled":false,"fallbackEnabled":false,"timeoutInMilliseconds":0,
			"semaphoreSize":0,"fallbackSemaphoreSize":0,"threadInterruptOnTimeout":false},
		"metrics":{"healthBucketSizeInMs":0,"percentileBucketSizeInMilliseconds":0,"percentileBucketCount":0,
			"percentileEnabled":false,"counterBucketSizeInMilliseconds":0,"counterBucketCount":0},
		"circuitBreaker":{"enabled":false,"isForcedOpen":false,"isForcedClosed":false,"requestVolumeThreshold":0,
			"errorPercentageThreshold":0,"sleepInMilliseconds":0},
		"properties":{"execution.isolation.strategy":"THREAD"}}},"threadpools":{},"collapsers":{}}`, frame)
}

func TestEmptyMapsAreObjects(t *testing.T) {
	clk := clock.NewFake(epoch)
	h := newUtilizationHandler(func() wire.Utilization { return wire.Utilization{} }, withClock(clk))
	c := newTestServer(t, h).connect()
	advance(clk, 1, sse.DefaultUtilizationInterval)
	frames := c.tick(t)
	assert.Equal(t, []string{`{"type":"HystrixUtilization","commands":{},"threadpools":{}}`}, frames)
	assertShape(t, frames[0])
}
