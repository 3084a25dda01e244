package dashboard

import (
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// traffic is a set of fresh registries on a fake clock, with known traffic published.
type traffic struct {
	clk   *clock.Fake
	m     *metrics.Registry
	pools *bulkhead.PoolRegistry // the goroutine pools behind the thread-pool gauges
	reg   Registries
}

const resolution = 100 * time.Millisecond // metrics' default stream bucket

// advance moves the clock one stream bucket at a time and lets metrics catch up.
func (tr *traffic) advance(d time.Duration) {
	tr.m.Flush()
	for ; d > 0; d -= resolution {
		tr.clk.Advance(resolution)
		tr.m.Flush()
	}
}

func newRegistries(t *testing.T) *traffic {
	mem := config.NewMemorySource()
	mem.Set("hystrix.command.GetUser.circuitBreaker.requestVolumeThreshold", "10")
	store := config.NewStore(mem)
	t.Cleanup(store.Close)
	clk := clock.NewFake(epoch)
	m := metrics.NewRegistry(store, clk)
	t.Cleanup(m.Close)
	br := breaker.NewRegistry(store, m, clk, nil)
	t.Cleanup(br.Close)
	pools := bulkhead.NewPoolRegistry(store, clk)
	t.Cleanup(pools.Close)
	return &traffic{clk: clk, m: m, pools: pools, reg: Registries{Properties: store, Metrics: m, Breakers: br,
		CommandKeys: func(command string) (string, string) {
			if command == "GetUser" {
				return "Users", "Users"
			}
			return "", ""
		}}}
}

// publishTraffic records, for command GetUser on thread pool Users: 12 successes (10 ms),
// 9 failures (50 ms) and 1 rejection with fallback, 3 timeouts (250 ms) without fallback,
// 1 bad request (5 ms), 2 short-circuits with fallback, 1 cache hit and 2 executions still
// running; pool Users has 1 finished and 2 running tasks; collapser UserBatch ran batches
// of 3, 5 and 10 and answered 2 requests from cache; command ListUsers has no traffic.
// The clock then moves 10 s, so every bucket that holds the traffic is closed.
func publishTraffic(t *testing.T, tr *traffic) {
	store, m := tr.reg.Properties, tr.m
	cp, err := store.Command("GetUser", config.Overrides{"execution.isolation.thread.timeoutInMilliseconds": "250"})
	require.NoError(t, err)
	_, err = store.Command("ListUsers", config.Overrides{"execution.isolation.strategy": "SEMAPHORE",
		"threadPoolKeyOverride": "Special", "stream.cutsCountForHealth": "false"})
	require.NoError(t, err)
	poolOverrides := config.ThreadPoolOverrides{"coreSize": "4", "maxQueueSize": "10", "queueSizeRejectionThreshold": "8"}
	tp, err := store.ThreadPool("Users", poolOverrides)
	require.NoError(t, err)
	colp, err := store.Collapser("UserBatch", config.CollapserOverrides{"timerDelayInMilliseconds": "20"})
	require.NoError(t, err)

	cmd, pool := m.CommandFor("GetUser", cp), m.ThreadPoolFor("Users", tp)
	m.Command("ListUsers")
	run := func(n int, latency time.Duration, events ...metrics.EventType) {
		for range n {
			var counts metrics.EventCounts
			for _, e := range events {
				counts = counts.Add(e, 1)
			}
			res := metrics.NewExecutionResult(counts, true, true, latency, latency+time.Millisecond)
			cmd.MarkStart()
			pool.MarkStart()
			cmd.MarkComplete(res)
			pool.MarkComplete(res)
		}
	}
	run(12, 10*time.Millisecond, metrics.Emit, metrics.Success)
	run(9, 50*time.Millisecond, metrics.Failure, metrics.FallbackEmit, metrics.FallbackSuccess)
	run(3, 250*time.Millisecond, metrics.Timeout, metrics.FallbackMissing)
	run(1, 5*time.Millisecond, metrics.BadRequest)
	notRun := func(events ...metrics.EventType) {
		res := metrics.ExecutionResult{}
		for _, e := range events {
			res = res.WithEvent(e)
		}
		cmd.MarkComplete(res)
		pool.MarkComplete(res)
	}
	notRun(metrics.ThreadPoolRejected, metrics.FallbackEmit, metrics.FallbackSuccess)
	notRun(metrics.ShortCircuited, metrics.FallbackEmit, metrics.FallbackSuccess)
	notRun(metrics.ShortCircuited, metrics.FallbackEmit, metrics.FallbackSuccess)
	notRun(metrics.ResponseFromCache)
	for range 2 {
		cmd.MarkStart()
		pool.MarkStart()
	}
	tr.reg.Breakers.Get("GetUser", cp) // the command's breaker, listening to its health

	col := m.CollapserFor("UserBatch", colp)
	for _, size := range []int{3, 5, 10} {
		col.MarkBatch(size)
	}
	col.MarkResponseFromCache()
	col.MarkResponseFromCache()

	busyPool(t, tr.pools, pool, poolOverrides)
	tr.advance(10 * time.Second)
}

// task is a func as a bulkhead.Task.
type task func()

func (f task) Run() { f() }

// busyPool runs one task to completion on pool Users, whose gauges m reads (as the
// command package registers them), and leaves two running until the test ends.
func busyPool(t *testing.T, pools *bulkhead.PoolRegistry, m *metrics.ThreadPoolMetrics, overrides config.ThreadPoolOverrides) {
	p, err := pools.Get("Users", overrides)
	require.NoError(t, err)
	m.SetGauges(p.Gauges)
	require.NoError(t, p.SubmitTask(task(func() {})))
	require.Eventually(t, func() bool { return p.Gauges().CompletedTaskCount == 1 }, patience, time.Millisecond)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before pools.Close, which waits for running tasks
	var started sync.WaitGroup
	started.Add(2)
	for range 2 {
		require.NoError(t, p.SubmitTask(task(func() { started.Done(); <-release })))
	}
	started.Wait()
}

func TestRegistriesSnapshotFromTraffic(t *testing.T) {
	tr := newRegistries(t)
	publishTraffic(t, tr)
	s := tr.reg.snapshot()

	require.Len(t, s.Commands, 2)
	get, list := s.Commands[0], s.Commands[1]
	assert.Equal(t, "GetUser", get.Name)
	assert.Equal(t, "Users", get.Group)
	assert.Equal(t, "Users", get.ThreadPool)
	assert.True(t, get.IsCircuitBreakerOpen, "13 errors of 25 requests: 52%% >= 50%%")
	assert.Equal(t, int64(25), get.RequestCount, "success + failure + timeout + pool rejection")
	assert.Equal(t, int64(13), get.ErrorCount)
	assert.Equal(t, 52, get.ErrorPercentage)
	assert.Equal(t, wire.CommandCounts{
		BadRequests: 1, Emit: 12, ExceptionsThrown: 4, Failure: 9, FallbackEmit: 12, FallbackMissing: 3,
		FallbackSuccess: 12, ResponsesFromCache: 1, ShortCircuited: 2, Success: 12, ThreadPoolRejected: 1,
		Timeout: 3,
	}, get.CommandCounts)
	assert.Equal(t, int64(2), get.CurrentConcurrentExecutionCount)
	assert.Equal(t, int64(2), get.RollingMaxConcurrentExecutionCount)
	assert.Equal(t, int64(53), get.LatencyExecuteMean, "(12*10 + 9*50 + 3*250 + 5) / 25 ms")
	assert.Equal(t, int64(54), get.LatencyTotalMean)
	// ranks of 25 samples: 5, 10 x12, 50 x9, 250 x3 (1% sketch accuracy)
	want := []float64{5, 10, 10, 50, 50, 250, 250, 250, 250}
	for i, l := range wire.PercentileLevels {
		assert.InDelta(t, want[i], float64(get.LatencyExecute[i]), want[i]/100+0.5, "execute p%v", l)
		assert.InDelta(t, want[i]+1, float64(get.LatencyTotal[i]), want[i]/100+0.5, "total p%v", l)
	}
	assert.Equal(t, int64(250), get.ExecutionTimeoutInMilliseconds)
	assert.Equal(t, int64(250), get.ExecutionIsolationThreadTimeoutInMilliseconds)
	assert.Equal(t, 10, get.CircuitBreakerRequestVolumeThreshold, "dynamic value")
	assert.Equal(t, "THREAD", get.ExecutionIsolationStrategy)
	assert.Nil(t, get.ExecutionIsolationThreadPoolKeyOverride)

	assert.Equal(t, "ListUsers", list.Name)
	assert.Equal(t, "ListUsers", list.Group, "no group known: the command key")
	assert.Equal(t, "Special", list.ThreadPool, "no pool known: the override")
	assert.Equal(t, "SEMAPHORE", list.ExecutionIsolationStrategy)
	require.NotNil(t, list.ExecutionIsolationThreadPoolKeyOverride)
	assert.Equal(t, "Special", *list.ExecutionIsolationThreadPoolKeyOverride)
	assert.False(t, list.IsCircuitBreakerOpen)
	assert.Zero(t, list.RequestCount)

	require.Len(t, s.ThreadPools, 1)
	assert.Equal(t, wire.ThreadPool{
		Name: "Users", CurrentActiveCount: 2, CurrentCompletedTaskCount: 1, CurrentCorePoolSize: 4,
		CurrentLargestPoolSize: 2, CurrentMaximumPoolSize: 4, CurrentPoolSize: 2, CurrentTaskCount: 3,
		RollingCountThreadsExecuted: 25, RollingMaxActiveThreads: 2, RollingCountCommandRejections: 1,
		PropertyValueQueueSizeRejectionThreshold: 8, PropertyValueMetricsRollingStatisticalWindow: 10000,
		ReportingHosts: 1,
	}, s.ThreadPools[0])

	require.Len(t, s.Collapsers, 1)
	col := s.Collapsers[0]
	assert.Equal(t, "UserBatch", col.Name)
	assert.Equal(t, int64(18), col.RollingCountRequestsBatched)
	assert.Equal(t, int64(3), col.RollingCountBatches)
	assert.Equal(t, int64(2), col.RollingCountResponsesFromCache)
	assert.Equal(t, int64(6), col.BatchSizeMean, "18/3")
	assert.Equal(t, wire.BatchSizes{3, 5, 5, 5, 5, 5, 5, 10}, col.BatchSize, "sketch ranks q*(n-1)")
	assert.Equal(t, wire.UnboundedBatch, col.PropertyValueMaxRequestsInBatch)
	assert.Equal(t, int64(20), col.PropertyValueTimerDelayInMilliseconds)
	assert.True(t, col.PropertyValueRequestCacheEnabled)
}

// TestRegistriesGoldenFrame renders the interval of /hystrix.stream for the known traffic.
func TestRegistriesGoldenFrame(t *testing.T) {
	tr := newRegistries(t)
	publishTraffic(t, tr)
	f := sse.NewFrames(slog.Default())
	sse.Snapshots(tr.reg.snapshot)(f, tr.clk.Now()) // what NewStreamHandler(tr.reg) renders
	f.Ping()
	golden(t, "registries.stream", string(f.Bytes()))
}

// TestRegistriesConfigStream streams the configuration of the known traffic: Hystrix's
// fields with the values set in publishTraffic or Hystrix's defaults.
func TestRegistriesConfigStream(t *testing.T) {
	tr := newRegistries(t)
	publishTraffic(t, tr)
	hclk := clock.NewFake(epoch)
	obj := assertShape(t, onlyFrame(t, NewConfigHandler(tr.reg, withClock(hclk)), hclk))

	// properties (ours) are checked apart: every property, by the name users set it by
	cp, err := tr.reg.Properties.Command("GetUser", nil)
	require.NoError(t, err)
	props := obj["commands"].(map[string]any)["GetUser"].(map[string]any)["properties"].(map[string]any)
	assert.Len(t, props, len(cp.Settings()), "every property")
	assert.Equal(t, "250", props["execution.isolation.thread.timeoutInMilliseconds"], "set in code")
	assert.Equal(t, "10", props["circuitBreaker.requestVolumeThreshold"], "dynamic")
	assert.Equal(t, "THREAD", props["execution.isolation.strategy"], "default")
	pool := obj["threadpools"].(map[string]any)["Users"].(map[string]any)
	assert.Equal(t, "4", pool["properties"].(map[string]any)["coreSize"])
	col := obj["collapsers"].(map[string]any)["UserBatch"].(map[string]any)
	assert.Equal(t, "20", col["properties"].(map[string]any)["timerDelayInMilliseconds"])
	for _, section := range []string{"commands", "threadpools", "collapsers"} {
		for _, v := range obj[section].(map[string]any) {
			delete(v.(map[string]any), "properties")
		}
	}

	rest, err := json.Marshal(obj)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type": "HystrixConfig",
		"commands": {
			"GetUser": {"threadPoolKey": "Users", "groupKey": "Users",
				"execution": {"isolationStrategy": "THREAD", "threadPoolKeyOverride": null,
					"requestCacheEnabled": true, "requestLogEnabled": true, "timeoutEnabled": true,
					"fallbackEnabled": true, "timeoutInMilliseconds": 250, "semaphoreSize": 10,
					"fallbackSemaphoreSize": 10, "threadInterruptOnTimeout": true},
				"metrics": {"healthBucketSizeInMs": 500, "percentileBucketSizeInMilliseconds": 10000,
					"percentileBucketCount": 6, "percentileEnabled": true,
					"counterBucketSizeInMilliseconds": 1000, "counterBucketCount": 10},
				"circuitBreaker": {"enabled": true, "isForcedOpen": false, "isForcedClosed": false,
					"requestVolumeThreshold": 10, "errorPercentageThreshold": 50, "sleepInMilliseconds": 5000}},
			"ListUsers": {"threadPoolKey": "Special", "groupKey": "ListUsers",
				"execution": {"isolationStrategy": "SEMAPHORE", "threadPoolKeyOverride": "Special",
					"requestCacheEnabled": true, "requestLogEnabled": true, "timeoutEnabled": true,
					"fallbackEnabled": true, "timeoutInMilliseconds": 1000, "semaphoreSize": 10,
					"fallbackSemaphoreSize": 10, "threadInterruptOnTimeout": true},
				"metrics": {"healthBucketSizeInMs": 500, "percentileBucketSizeInMilliseconds": 10000,
					"percentileBucketCount": 6, "percentileEnabled": true,
					"counterBucketSizeInMilliseconds": 1000, "counterBucketCount": 10},
				"circuitBreaker": {"enabled": true, "isForcedOpen": false, "isForcedClosed": false,
					"requestVolumeThreshold": 20, "errorPercentageThreshold": 50, "sleepInMilliseconds": 5000}}},
		"threadpools": {
			"Users": {"coreSize": 4, "maximumSize": 10, "maxQueueSize": 10, "queueRejectionThreshold": 8,
				"keepAliveTimeInMinutes": 1, "allowMaximumSizeToDivergeFromCoreSize": false,
				"counterBucketSizeInMilliseconds": 1000, "counterBucketCount": 10}},
		"collapsers": {
			"UserBatch": {"maxRequestsInBatch": 2147483647, "timerDelayInMilliseconds": 20,
				"requestCacheEnabled": true,
				"metrics": {"percentileBucketSizeInMilliseconds": 10000, "percentileBucketCount": 6,
					"percentileEnabled": true, "counterBucketSizeInMilliseconds": 1000, "counterBucketCount": 10}}}
	}`, string(rest))
}

func TestRegistriesUtilizationStream(t *testing.T) {
	tr := newRegistries(t)
	publishTraffic(t, tr)
	hclk := clock.NewFake(epoch)
	frame := onlyFrame(t, NewUtilizationHandler(tr.reg, withClock(hclk)), hclk)
	assertShape(t, frame)
	assert.JSONEq(t, `{"type": "HystrixUtilization",
		"commands": {"GetUser": {"activeCount": 2}, "ListUsers": {"activeCount": 0}},
		"threadpools": {"Users": {"activeCount": 2, "queueSize": 0, "corePoolSize": 4, "poolSize": 2,
			"utilization": 50}}}`, frame)
}

func TestRegistriesWithoutRegistries(t *testing.T) {
	var r Registries
	assert.Equal(t, wire.Snapshot{}, r.snapshot())
	assert.Equal(t, wire.Utilization{}, r.utilization())
	assert.Equal(t, wire.Config{}, r.config())
}

func TestRegistriesGaugesFromMetricsWithoutBreakers(t *testing.T) {
	tr := newRegistries(t)
	tr.reg.Breakers = nil
	pool := tr.m.ThreadPool("Users")
	pool.SetGauges(func() metrics.ThreadPoolGauges { return metrics.ThreadPoolGauges{ActiveCount: 3, MaximumPoolSize: 4} })
	cp, err := tr.reg.Properties.Command("GetUser", config.Overrides{"circuitBreaker.forceOpen": "true"})
	require.NoError(t, err)
	tr.m.CommandFor("GetUser", cp)

	s := tr.reg.snapshot()
	require.Len(t, s.ThreadPools, 1)
	assert.Equal(t, 3, s.ThreadPools[0].CurrentActiveCount)
	assert.Equal(t, 75, tr.reg.utilization().ThreadPools["Users"].Utilization)
	require.Len(t, s.Commands, 1)
	assert.False(t, s.Commands[0].IsCircuitBreakerOpen, "no breaker registry: reported closed")
}

// TestRegistriesOverHTTP streams the known traffic end to end and reads each frame by
// Hystrix's field names, with the values publishTraffic implies.
func TestRegistriesOverHTTP(t *testing.T) {
	tr := newRegistries(t)
	publishTraffic(t, tr)
	hclk := clock.NewFake(epoch) // the handler's own clock: its timers are easy to count
	s := newTestServer(t, NewStreamHandler(tr.reg, withClock(hclk)))
	c := s.connect()
	advance(hclk, 1, sse.DefaultInterval)
	frames := c.tick(t)
	require.Len(t, frames, 4, "two commands, one pool, one collapser")
	now := float64(hclk.Now().UnixMilli())

	get := assertShape(t, frames[0])
	// ranks of 25 samples: 5, 10 x12, 50 x9, 250 x3 (1% sketch accuracy); total is 1 ms more
	levels := []string{"0", "25", "50", "75", "90", "95", "99", "99.5", "100"}
	latency := []float64{5, 10, 10, 50, 50, 250, 250, 250, 250}
	for i, l := range levels {
		assert.InDelta(t, latency[i], get["latencyExecute"].(map[string]any)[l], latency[i]/100+0.5, "execute p%s", l)
		assert.InDelta(t, latency[i]+1, get["latencyTotal"].(map[string]any)[l], latency[i]/100+0.5, "total p%s", l)
	}
	delete(get, "latencyExecute")
	delete(get, "latencyTotal")
	assert.Equal(t, map[string]any{
		"type": "HystrixCommand", "name": "GetUser", "group": "Users", "threadPool": "Users", "currentTime": now,
		"isCircuitBreakerOpen": true, "errorPercentage": 52.0, "errorCount": 13.0, "requestCount": 25.0,
		"rollingCountBadRequests": 1.0, "rollingCountCollapsedRequests": 0.0, "rollingCountEmit": 12.0,
		"rollingCountExceptionsThrown": 4.0, "rollingCountFailure": 9.0, "rollingCountFallbackEmit": 12.0,
		"rollingCountFallbackFailure": 0.0, "rollingCountFallbackMissing": 3.0,
		"rollingCountFallbackRejection": 0.0, "rollingCountFallbackSuccess": 12.0,
		"rollingCountResponsesFromCache": 1.0, "rollingCountSemaphoreRejected": 0.0, "rollingCountAdaptiveRejected": 0.0,
		"rollingCountShortCircuited": 2.0, "rollingCountSuccess": 12.0, "rollingCountThreadPoolRejected": 1.0,
		"rollingCountTimeout": 3.0, "rollingCountRateLimited": 0.0, "rollingCountFaultInjected": 0.0,
		"rollingCountRetry": 0.0, "rollingCountBudgetExhausted": 0.0, "rollingCountHedge": 0.0, "rollingCountThrottled": 0.0,
		"currentConcurrentExecutionCount":    2.0,
		"rollingMaxConcurrentExecutionCount": 2.0, "latencyExecute_mean": 53.0, "latencyTotal_mean": 54.0,
		"propertyValue_circuitBreakerRequestVolumeThreshold":             10.0,
		"propertyValue_circuitBreakerSleepWindowInMilliseconds":          5000.0,
		"propertyValue_circuitBreakerErrorThresholdPercentage":           50.0,
		"propertyValue_circuitBreakerForceOpen":                          false,
		"propertyValue_circuitBreakerForceClosed":                        false,
		"propertyValue_circuitBreakerEnabled":                            true,
		"propertyValue_executionIsolationStrategy":                       "THREAD",
		"propertyValue_executionIsolationThreadTimeoutInMilliseconds":    250.0,
		"propertyValue_executionTimeoutInMilliseconds":                   250.0,
		"propertyValue_executionIsolationThreadInterruptOnTimeout":       true,
		"propertyValue_executionIsolationThreadPoolKeyOverride":          nil,
		"propertyValue_executionIsolationSemaphoreMaxConcurrentRequests": 10.0,
		"propertyValue_fallbackIsolationSemaphoreMaxConcurrentRequests":  10.0,
		"propertyValue_metricsRollingStatisticalWindowInMilliseconds":    10000.0,
		"propertyValue_requestCacheEnabled":                              true,
		"propertyValue_requestLogEnabled":                                true,
		"propertyValue_streamCutsCountForHealth":                         true,
		"reportingHosts":                                                 1.0,
	}, get)

	list := assertShape(t, frames[1])
	assert.Equal(t, "ListUsers", list["name"])
	assert.Equal(t, "Special", list["threadPool"])
	assert.Equal(t, "Special", list["propertyValue_executionIsolationThreadPoolKeyOverride"])
	assert.Equal(t, false, list["propertyValue_streamCutsCountForHealth"])
	assert.Equal(t, 0.0, list["requestCount"])

	assert.Equal(t, map[string]any{
		"type": "HystrixThreadPool", "name": "Users", "currentTime": now, "currentActiveCount": 2.0,
		"currentCompletedTaskCount": 1.0, "currentCorePoolSize": 4.0, "currentLargestPoolSize": 2.0,
		"currentMaximumPoolSize": 4.0, "currentPoolSize": 2.0, "currentQueueSize": 0.0,
		"currentTaskCount": 3.0, "rollingCountThreadsExecuted": 25.0, "rollingMaxActiveThreads": 2.0,
		"rollingCountCommandRejections": 1.0, "propertyValue_queueSizeRejectionThreshold": 8.0,
		"propertyValue_metricsRollingStatisticalWindowInMilliseconds": 10000.0, "reportingHosts": 1.0,
	}, assertShape(t, frames[2]))

	assert.Equal(t, map[string]any{
		"type": "HystrixCollapser", "name": "UserBatch", "currentTime": now,
		"rollingCountRequestsBatched": 18.0, "rollingCountBatches": 3.0, "rollingCountResponsesFromCache": 2.0,
		"batchSize_mean": 6.0, "batchSize": map[string]any{"25": 3.0, "50": 5.0, "75": 5.0, "90": 5.0,
			"95": 5.0, "99": 5.0, "99.5": 5.0, "100": 10.0},
		"propertyValue_requestCacheEnabled": true, "propertyValue_maxRequestsInBatch": 2147483647.0,
		"propertyValue_timerDelayInMilliseconds": 20.0, "reportingHosts": 1.0,
	}, assertShape(t, frames[3]))
}

func TestRegistriesMetricsOnly(t *testing.T) {
	tr := newRegistries(t)
	tr.m.Command("GetUser")
	r := Registries{Metrics: tr.m}
	s := r.snapshot()
	require.Len(t, s.Commands, 1)
	c := s.Commands[0]
	assert.Equal(t, "GetUser", c.Group)
	assert.Equal(t, "GetUser", c.ThreadPool)
	assert.Equal(t, wire.CommandPropertyValues{}, c.CommandPropertyValues, "no store: zero values")
	assert.Equal(t, wire.Config{}, r.config())
}
