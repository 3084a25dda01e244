package dashboard

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
)

// Field kinds as a JSON decoder sees them.
const (
	kString = "string"
	kInt    = "integer"
	kBool   = "bool"
	kNull   = "null"
	kPct    = "percentiles"
	kBatch  = "batchSizes"
)

var commandShape = map[string]string{
	"type": kString, "name": kString, "group": kString, "currentTime": kInt, "threadPool": kString,
	"isCircuitBreakerOpen": kBool, "errorPercentage": kInt, "errorCount": kInt, "requestCount": kInt,
	"rollingCountBadRequests": kInt, "rollingCountCollapsedRequests": kInt, "rollingCountEmit": kInt,
	"rollingCountExceptionsThrown": kInt, "rollingCountFailure": kInt, "rollingCountFallbackEmit": kInt,
	"rollingCountFallbackFailure": kInt, "rollingCountFallbackMissing": kInt,
	"rollingCountFallbackRejection": kInt, "rollingCountFallbackSuccess": kInt,
	"rollingCountResponsesFromCache": kInt, "rollingCountSemaphoreRejected": kInt,
	"rollingCountShortCircuited": kInt, "rollingCountSuccess": kInt,
	"rollingCountThreadPoolRejected": kInt, "rollingCountTimeout": kInt,
	"currentConcurrentExecutionCount": kInt, "rollingMaxConcurrentExecutionCount": kInt,
	"latencyExecute_mean": kInt, "latencyExecute": kPct, "latencyTotal_mean": kInt, "latencyTotal": kPct,
	"propertyValue_circuitBreakerRequestVolumeThreshold":             kInt,
	"propertyValue_circuitBreakerSleepWindowInMilliseconds":          kInt,
	"propertyValue_circuitBreakerErrorThresholdPercentage":           kInt,
	"propertyValue_circuitBreakerForceOpen":                          kBool,
	"propertyValue_circuitBreakerForceClosed":                        kBool,
	"propertyValue_circuitBreakerEnabled":                            kBool,
	"propertyValue_executionIsolationStrategy":                       kString,
	"propertyValue_executionIsolationThreadTimeoutInMilliseconds":    kInt,
	"propertyValue_executionTimeoutInMilliseconds":                   kInt,
	"propertyValue_executionIsolationThreadInterruptOnTimeout":       kBool,
	"propertyValue_executionIsolationThreadPoolKeyOverride":          kNull, // unset; a string when set
	"propertyValue_executionIsolationSemaphoreMaxConcurrentRequests": kInt,
	"propertyValue_fallbackIsolationSemaphoreMaxConcurrentRequests":  kInt,
	"propertyValue_metricsRollingStatisticalWindowInMilliseconds":    kInt,
	"propertyValue_requestCacheEnabled":                              kBool,
	"propertyValue_requestLogEnabled":                                kBool,
	"reportingHosts":                                                 kInt,
}

var threadPoolShape = map[string]string{
	"type": kString, "name": kString, "currentTime": kInt, "currentActiveCount": kInt,
	"currentCompletedTaskCount": kInt, "currentCorePoolSize": kInt, "currentLargestPoolSize": kInt,
	"currentMaximumPoolSize": kInt, "currentPoolSize": kInt, "currentQueueSize": kInt,
	"currentTaskCount": kInt, "rollingCountThreadsExecuted": kInt, "rollingMaxActiveThreads": kInt,
	"rollingCountCommandRejections": kInt, "propertyValue_queueSizeRejectionThreshold": kInt,
	"propertyValue_metricsRollingStatisticalWindowInMilliseconds": kInt, "reportingHosts": kInt,
}

var collapserShape = map[string]string{
	"type": kString, "name": kString, "currentTime": kInt, "rollingCountRequestsBatched": kInt,
	"rollingCountBatches": kInt, "rollingCountResponsesFromCache": kInt, "batchSize_mean": kInt,
	"batchSize": kBatch, "propertyValue_requestCacheEnabled": kBool,
	"propertyValue_maxRequestsInBatch": kInt, "propertyValue_timerDelayInMilliseconds": kInt,
	"reportingHosts": kInt,
}

// overriddenShape is commandShape for a command with a threadPoolKeyOverride.
func overriddenShape() map[string]string {
	s := maps.Clone(commandShape)
	s["propertyValue_executionIsolationThreadPoolKeyOverride"] = kString
	return s
}

// kindOf names the JSON kind of a decoded value; objects must be percentile objects.
func kindOf(t *testing.T, v any) string {
	t.Helper()
	switch v := v.(type) {
	case nil:
		return kNull
	case string:
		return kString
	case bool:
		return kBool
	case float64:
		if v == math.Trunc(v) {
			return kInt
		}
		return "fraction"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		for _, k := range keys {
			require.Equal(t, kInt, kindOf(t, v[k]), "percentile %q", k)
		}
		switch {
		case slices.Equal(keys, []string{"0", "100", "25", "50", "75", "90", "95", "99", "99.5"}):
			return kPct
		case slices.Equal(keys, []string{"100", "25", "50", "75", "90", "95", "99", "99.5"}):
			return kBatch
		}
		t.Fatalf("unexpected object keys %v", keys)
	}
	t.Fatalf("unexpected JSON value %#v", v)
	return ""
}

// assertShape decodes a frame and checks it has exactly the fields of shape, each of
// its kind, and returns the decoded object.
func assertShape(t *testing.T, frame string, shape map[string]string) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(frame), &obj), frame)
	assert.ElementsMatch(t, slices.Collect(maps.Keys(shape)), slices.Collect(maps.Keys(obj)))
	for name, kind := range shape {
		if v, ok := obj[name]; ok {
			assert.Equal(t, kind, kindOf(t, v), "field %s", name)
		}
	}
	return obj
}

func newSampleStream(t *testing.T, opts ...Option) (*testServer, *clock.Fake) {
	clk := clock.NewFake(epoch)
	h := NewStreamHandler(ProviderFunc(sampleSnapshot), append([]Option{WithClock(clk)}, opts...)...)
	return newTestServer(t, h), clk
}

func TestStreamFrameShapes(t *testing.T) {
	s, clk := newSampleStream(t)
	c := s.connect()
	advance(clk, 1, DefaultInterval)
	frames := c.tick(t)
	require.Len(t, frames, 4, "two commands, one pool, one collapser")

	now := float64(epoch.Add(DefaultInterval).UnixMilli())
	cmd := assertShape(t, frames[0], commandShape)
	assert.Equal(t, "HystrixCommand", cmd["type"])
	assert.Equal(t, now, cmd["currentTime"])
	assert.Equal(t, 1.0, cmd["reportingHosts"], "0 is written as 1")
	assert.Equal(t, map[string]any{"0": 1.0, "25": 5.0, "50": 10.0, "75": 20.0, "90": 40.0,
		"95": 60.0, "99": 90.0, "99.5": 95.0, "100": 120.0}, cmd["latencyExecute"])

	second := assertShape(t, frames[1], overriddenShape())
	assert.Equal(t, "UsersOverride", second["propertyValue_executionIsolationThreadPoolKeyOverride"])
	assert.Equal(t, 3.0, second["reportingHosts"], "a provider's host count is kept")

	pool := assertShape(t, frames[2], threadPoolShape)
	assert.Equal(t, "HystrixThreadPool", pool["type"])
	assert.Equal(t, now, pool["currentTime"])

	col := assertShape(t, frames[3], collapserShape)
	assert.Equal(t, "HystrixCollapser", col["type"])
	assert.Equal(t, now, col["currentTime"])
	assert.Equal(t, float64(UnboundedBatch), col["propertyValue_maxRequestsInBatch"])
}

func TestStreamGoldenSample(t *testing.T) {
	s, clk := newSampleStream(t)
	c := s.connect()
	advance(clk, 1, DefaultInterval)
	golden(t, "sample.stream", c.rawTick(t))
}

func TestStreamPacesByInterval(t *testing.T) {
	var calls atomic.Int32
	snap := func() Snapshot { calls.Add(1); return Snapshot{Collapsers: []Collapser{{Name: "C"}}} }
	clk := clock.NewFake(epoch)
	s := newTestServer(t, NewStreamHandler(ProviderFunc(snap), WithClock(clk), WithInterval(100*time.Millisecond)))
	c := s.connect()

	advance(clk, 1, 99*time.Millisecond)
	clk.BlockUntil(1)
	assert.Zero(t, calls.Load(), "nothing before the first interval")
	for i := 1; i <= 3; i++ {
		advance(clk, 1, time.Millisecond) // first tick at 100ms, later ones every 100ms
		frames := c.tick(t)
		require.Len(t, frames, 1)
		var col Collapser
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
	s := newTestServer(t, NewStreamHandler(ProviderFunc(func() Snapshot { return Snapshot{} }), WithClock(clk)))
	c := s.connect()
	advance(clk, 1, DefaultInterval)
	assert.Equal(t, "ping: \n\n", c.rawTick(t))
}

func TestUtilizationStream(t *testing.T) {
	clk := clock.NewFake(epoch)
	p := UtilizationProviderFunc(func() Utilization {
		return Utilization{
			Commands: map[string]CommandUtilization{"GetUser": {ActiveCount: 2}},
			ThreadPools: map[string]ThreadPoolUtilization{"Users": {
				ActiveCount: 3, QueueSize: 1, CorePoolSize: 10, PoolSize: 4, Utilization: 30}},
		}
	})
	h := NewUtilizationHandler(p, WithClock(clk))
	assert.Equal(t, DefaultUtilizationInterval, h.opts.interval)
	c := newTestServer(t, h).connect()
	advance(clk, 1, DefaultUtilizationInterval)
	golden(t, "utilization.stream", c.rawTick(t))
}

func TestConfigStream(t *testing.T) {
	clk := clock.NewFake(epoch)
	p := ConfigProviderFunc(func() Config {
		return Config{Commands: map[string]CommandConfig{"GetUser": {GroupKey: "Users", ThreadPoolKey: "Users",
			Properties: map[string]string{"execution.isolation.strategy": "THREAD"}}}}
	})
	h := NewConfigHandler(p, WithClock(clk))
	assert.Equal(t, DefaultConfigInterval, h.opts.interval)
	c := newTestServer(t, h).connect()
	advance(clk, 1, DefaultConfigInterval)
	frames := c.tick(t)
	require.Len(t, frames, 1)
	assert.JSONEq(t, `{"type":"HystrixConfig","commands":{"GetUser":{"groupKey":"Users","threadPoolKey":"Users",
		"properties":{"execution.isolation.strategy":"THREAD"}}},"threadpools":{},"collapsers":{}}`, frames[0])
}

func TestEmptyMapsAreObjects(t *testing.T) {
	clk := clock.NewFake(epoch)
	h := NewUtilizationHandler(UtilizationProviderFunc(func() Utilization { return Utilization{} }), WithClock(clk))
	c := newTestServer(t, h).connect()
	advance(clk, 1, DefaultUtilizationInterval)
	assert.Equal(t, []string{`{"type":"HystrixUtilization","commands":{},"threadpools":{}}`}, c.tick(t))
}
