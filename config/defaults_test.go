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
		"hedge.maxHedges":                                     "0",
		"hedge.delayInMilliseconds":                           "100",
		"hedge.delayPercentile":                               "0",
	}, settingsMap(t, "hystrix.command.Cmd.", c.Settings()))

	assert.Equal(t, "Cmd", c.Key())
	assert.Equal(t, Thread, c.IsolationStrategy.Get())
	assert.Equal(t, time.Second, c.ExecutionTimeout.Get())
	assert.True(t, c.ExecutionTimeoutEnabled.Get())
	assert.True(t, c.InterruptOnTimeout.Get())
	assert.False(t, c.InterruptOnFutureCancel.Get())
	assert.Equal(t, 10, c.ExecutionMaxConcurrentRequests.Get())
	assert.Equal(t, 10, c.FallbackMaxConcurrentRequests.Get())
	assert.True(t, c.FallbackEnabled.Get())
	assert.True(t, c.CircuitBreakerEnabled.Get())
	assert.Equal(t, 20, c.CircuitBreakerRequestVolumeThreshold.Get())
	assert.Equal(t, 5*time.Second, c.CircuitBreakerSleepWindow.Get())
	assert.Equal(t, 50, c.CircuitBreakerErrorThresholdPercentage.Get())
	assert.False(t, c.CircuitBreakerForceOpen.Get())
	assert.False(t, c.CircuitBreakerForceClosed.Get())
	assert.False(t, c.CircuitBreakerEvaluateOnFailure.Get())
	assert.Equal(t, 10*time.Second, c.RollingStatsWindow.Get())
	assert.Equal(t, 10, c.RollingStatsBuckets.Get())
	assert.True(t, c.RollingPercentileEnabled.Get())
	assert.Equal(t, time.Minute, c.RollingPercentileWindow.Get())
	assert.Equal(t, 6, c.RollingPercentileBuckets.Get())
	assert.Equal(t, 100, c.RollingPercentileBucketSize.Get())
	assert.Equal(t, 500*time.Millisecond, c.HealthSnapshotInterval.Get())
	assert.True(t, c.RequestCacheEnabled.Get())
	assert.True(t, c.RequestLogEnabled.Get())
	assert.Empty(t, c.ThreadPoolKeyOverride.Get())
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
	assert.Equal(t, 10, p.CoreSize.Get())
	assert.Equal(t, 10, p.MaximumSize.Get())
	assert.False(t, p.AllowMaximumSizeToDivergeFromCoreSize.Get())
	assert.Equal(t, -1, p.MaxQueueSize.Get())
	assert.Equal(t, 5, p.QueueSizeRejectionThreshold.Get())
	assert.Equal(t, time.Minute, p.KeepAlive.Get())
	assert.Equal(t, 10*time.Second, p.RollingStatsWindow.Get())
	assert.Equal(t, 10, p.RollingStatsBuckets.Get())
	assert.Equal(t, 10, p.EffectiveMaximumSize())
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
	assert.Equal(t, 0, c.MaxRequestsInBatch.Get())
	assert.Equal(t, 10*time.Millisecond, c.TimerDelay.Get())
	assert.True(t, c.RequestCacheEnabled.Get())
	assert.Equal(t, 10*time.Second, c.RollingStatsWindow.Get())
	assert.Equal(t, 10, c.RollingStatsBuckets.Get())
	assert.True(t, c.RollingPercentileEnabled.Get())
	assert.Equal(t, time.Minute, c.RollingPercentileWindow.Get())
	assert.Equal(t, 6, c.RollingPercentileBuckets.Get())
	assert.Equal(t, 100, c.RollingPercentileBucketSize.Get())
}

func TestSettingsOrderFollowsStructOrder(t *testing.T) {
	c, err := NewStore().Command("Order", nil)
	require.NoError(t, err)
	s := c.Settings()
	require.NotEmpty(t, s)
	assert.Equal(t, "execution.isolation.strategy", s[0].Name)
	assert.Equal(t, HedgeDelayPercentile.Name(), s[len(s)-1].Name)
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
