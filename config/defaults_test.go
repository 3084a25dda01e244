package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settingsMap turns Settings into short name -> value, checking full names on the way.
func settingsMap(t *testing.T, prefix string, list []Setting) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, s := range list {
		assert.Equal(t, prefix+s.Name, s.FullName)
		m[s.Name] = s.Value
	}
	return m
}

func TestCommandDefaults(t *testing.T) {
	c, err := NewStore().Command("Cmd", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"execution.isolation.strategy":                        "THREAD",
		"execution.isolation.adaptive.algorithm":              "GRADIENT2",
		"execution.isolation.adaptive.minLimit":               "1",
		"execution.isolation.adaptive.maxLimit":               "200",
		"execution.isolation.adaptive.initialLimit":           "4",
		"execution.isolation.adaptive.windowInMilliseconds":   "250",
		"execution.isolation.adaptive.queueSize":              "0",
		"execution.isolation.adaptive.reserved":               "CRITICAL=30,SHEDDABLE_PLUS=20",
		"execution.isolation.adaptive.group":                  "",
		"execution.isolation.thread.timeoutInMilliseconds":    "1000",
		"execution.timeout.enabled":                           "true",
		"execution.isolation.thread.interruptOnTimeout":       "true",
		"execution.isolation.thread.interruptOnFutureCancel":  "false",
		"execution.isolation.semaphore.maxConcurrentRequests": "10",
		"fallback.isolation.semaphore.maxConcurrentRequests":  "10",
		"fallback.enabled":                                    "true",
		"circuitBreaker.enabled":                              "true",
		"circuitBreaker.requestVolumeThreshold":               "20",
		"circuitBreaker.sleepWindowInMilliseconds":            "5000",
		"circuitBreaker.errorThresholdPercentage":             "50",
		"circuitBreaker.forceOpen":                            "false",
		"circuitBreaker.forceClosed":                          "false",
		"circuitBreaker.evaluateOnFailure":                    "false",
		"metrics.rollingStats.timeInMilliseconds":             "10000",
		"metrics.rollingStats.numBuckets":                     "10",
		"metrics.rollingPercentile.enabled":                   "true",
		"metrics.rollingPercentile.timeInMilliseconds":        "60000",
		"metrics.rollingPercentile.numBuckets":                "6",
		"metrics.rollingPercentile.bucketSize":                "100",
		"metrics.healthSnapshot.intervalInMilliseconds":       "500",
		"requestCache.enabled":                                "true",
		"requestLog.enabled":                                  "true",
		"threadPoolKeyOverride":                               "",
		"rateLimit.enabled":                                   "false",
		"rateLimit.permitsPerSecond":                          "100",
		"rateLimit.burst":                                     "10",
		"rateLimit.maxWaitInMilliseconds":                     "0",
		"rateLimit.group":                                     "",
		"faultInjection.enabled":                              "false",
		"faultInjection.percentage":                           "0",
		"faultInjection.fault":                                "ERROR",
		"faultInjection.latencyInMilliseconds":                "100",
		"retry.maxAttempts":                                   "1",
		"retry.backoffInMilliseconds":                         "50",
		"retry.maxBackoffInMilliseconds":                      "1000",
		"retry.onTimeout":                                     "false",
		"retry.timeoutPerAttempt":                             "false",
		"budget.enabled":                                      "true",
		"budget.group":                                        "",
		"budget.percent":                                      "20",
		"budget.minPerSecond":                                 "10",
		"budget.maxTokens":                                    "0",
		"budget.tokenRatioInThousandths":                      "100",
		"stream.establishTimeoutInMilliseconds":               "0",
		"stream.firstItemTimeoutInMilliseconds":               "0",
		"stream.idleTimeoutInMilliseconds":                    "0",
		"stream.maxLifetimeInMilliseconds":                    "0",
		"stream.maxItemsInFlight":                             "0",
		"stream.overflow":                                     "BLOCK",
		"stream.overflowGraceInMilliseconds":                  "100",
		"stream.cutsCountForHealth":                           "true",
		"hedge.maxHedges":                                     "0",
		"hedge.delayInMilliseconds":                           "100",
		"hedge.delayPercentile":                               "0",
		"throttle.enabled":                                    "false",
		"throttle.k":                                          "2",
		"throttle.windowInMilliseconds":                       "120000",
		"throttle.minRequests":                                "20",
	}, settingsMap(t, "hystrix.command.Cmd.", c.Settings()))

	assert.Equal(t, "Cmd", c.Key())
	assert.Equal(t, Thread, ExecutionIsolationStrategy.In(c).Get())
	assert.Equal(t, time.Second, ExecutionTimeout.In(c).Get())
	assert.True(t, ExecutionTimeoutEnabled.In(c).Get())
	assert.True(t, InterruptOnTimeout.In(c).Get())
	assert.False(t, InterruptOnFutureCancel.In(c).Get())
	assert.Equal(t, 10, ExecutionMaxConcurrentRequests.In(c).Get())
	assert.Equal(t, 10, FallbackMaxConcurrentRequests.In(c).Get())
	assert.True(t, FallbackEnabled.In(c).Get())
	assert.True(t, CircuitBreakerEnabled.In(c).Get())
	assert.Equal(t, 20, CircuitBreakerRequestVolumeThreshold.In(c).Get())
	assert.Equal(t, 5*time.Second, CircuitBreakerSleepWindow.In(c).Get())
	assert.Equal(t, 50, CircuitBreakerErrorThresholdPercentage.In(c).Get())
	assert.False(t, CircuitBreakerForceOpen.In(c).Get())
	assert.False(t, CircuitBreakerForceClosed.In(c).Get())
	assert.False(t, CircuitBreakerEvaluateOnFailure.In(c).Get())
	assert.Equal(t, 10*time.Second, RollingStatsWindow.In(c).Get())
	assert.Equal(t, 10, RollingStatsBuckets.In(c).Get())
	assert.True(t, RollingPercentileEnabled.In(c).Get())
	assert.Equal(t, time.Minute, RollingPercentileWindow.In(c).Get())
	assert.Equal(t, 6, RollingPercentileBuckets.In(c).Get())
	assert.Equal(t, 100, rollingPercentileBucketSize.In(c).Get())
	assert.Equal(t, 500*time.Millisecond, HealthSnapshotInterval.In(c).Get())
	assert.True(t, RequestCacheEnabled.In(c).Get())
	assert.True(t, RequestLogEnabled.In(c).Get())
	assert.Empty(t, ThreadPoolKeyOverride.In(c).Get())
}

func TestThreadPoolDefaults(t *testing.T) {
	p, err := NewStore().ThreadPool("Pool", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"coreSize":                                "10",
		"maximumSize":                             "10",
		"allowMaximumSizeToDivergeFromCoreSize":   "false",
		"maxQueueSize":                            "-1",
		"queueSizeRejectionThreshold":             "5",
		"keepAliveTimeMinutes":                    "1",
		"metrics.rollingStats.timeInMilliseconds": "10000",
		"metrics.rollingStats.numBuckets":         "10",
	}, settingsMap(t, "hystrix.threadpool.Pool.", p.Settings()))

	assert.Equal(t, "Pool", p.Key())
	assert.Equal(t, 10, ThreadPoolCoreSize.In(p).Get())
	assert.Equal(t, 10, ThreadPoolMaximumSize.In(p).Get())
	assert.False(t, ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.In(p).Get())
	assert.Equal(t, -1, ThreadPoolMaxQueueSize.In(p).Get())
	assert.Equal(t, 5, ThreadPoolQueueSizeRejectionThreshold.In(p).Get())
	assert.Equal(t, time.Minute, ThreadPoolKeepAlive.In(p).Get())
	assert.Equal(t, 10*time.Second, ThreadPoolRollingStatsWindow.In(p).Get())
	assert.Equal(t, 10, ThreadPoolRollingStatsBuckets.In(p).Get())
	assert.Equal(t, 10, p.effectiveMaximumSize())
}

func TestCollapserDefaults(t *testing.T) {
	c, err := NewStore().Collapser("Col", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"maxRequestsInBatch":                           "0",
		"timerDelayInMilliseconds":                     "10",
		"requestCache.enabled":                         "true",
		"metrics.rollingStats.timeInMilliseconds":      "10000",
		"metrics.rollingStats.numBuckets":              "10",
		"metrics.rollingPercentile.enabled":            "true",
		"metrics.rollingPercentile.timeInMilliseconds": "60000",
		"metrics.rollingPercentile.numBuckets":         "6",
		"metrics.rollingPercentile.bucketSize":         "100",
	}, settingsMap(t, "hystrix.collapser.Col.", c.Settings()))

	assert.Equal(t, "Col", c.Key())
	assert.Equal(t, 0, CollapserMaxRequestsInBatch.In(c).Get())
	assert.Equal(t, 10*time.Millisecond, CollapserTimerDelay.In(c).Get())
	assert.True(t, CollapserRequestCacheEnabled.In(c).Get())
	assert.Equal(t, 10*time.Second, CollapserRollingStatsWindow.In(c).Get())
	assert.Equal(t, 10, CollapserRollingStatsBuckets.In(c).Get())
	assert.True(t, CollapserRollingPercentileEnabled.In(c).Get())
	assert.Equal(t, time.Minute, CollapserRollingPercentileWindow.In(c).Get())
	assert.Equal(t, 6, CollapserRollingPercentileBuckets.In(c).Get())
	assert.Equal(t, 100, collapserRollingPercentileBucketSize.In(c).Get())
}

func TestSettingsOrderFollowsStructOrder(t *testing.T) {
	c, err := NewStore().Command("Order", nil)
	require.NoError(t, err)
	s := c.Settings()
	require.NotEmpty(t, s)
	assert.Equal(t, "execution.isolation.strategy", s[0].Name)
	assert.Equal(t, ThrottleMinRequests.Name(), s[len(s)-1].Name)
}

func TestIsolationStrategy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want IsolationStrategy
	}{{"THREAD", Thread}, {"SEMAPHORE", Semaphore}, {" semaphore ", Semaphore}, {"adaptive", Adaptive}} {
		got, err := ParseIsolationStrategy(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	_, err := ParseIsolationStrategy("FIBER")
	assert.Error(t, err)
	assert.Equal(t, "THREAD", Thread.String())
	assert.Equal(t, "SEMAPHORE", Semaphore.String())
	assert.Equal(t, "ADAPTIVE", Adaptive.String())
	assert.Equal(t, "IsolationStrategy(7)", IsolationStrategy(7).String())
}
