package config

import "time"

// CommandProperties are the properties of one command key (REFERENCE §6), resolved as
// hystrix.command.<KEY>.X, then the value set in code, then hystrix.command.default.X,
// then the built-in default. Each field's doc gives the Hystrix short name and default.
type CommandProperties struct {
	// IsolationStrategy: execution.isolation.strategy = THREAD.
	IsolationStrategy *Property[IsolationStrategy]
	// ExecutionTimeout: execution.isolation.thread.timeoutInMilliseconds = 1000 (> 0).
	ExecutionTimeout *Property[time.Duration]
	// ExecutionTimeoutEnabled: execution.timeout.enabled = true.
	ExecutionTimeoutEnabled *Property[bool]
	// InterruptOnTimeout: execution.isolation.thread.interruptOnTimeout = true.
	InterruptOnTimeout *Property[bool]
	// InterruptOnFutureCancel: execution.isolation.thread.interruptOnFutureCancel = false.
	InterruptOnFutureCancel *Property[bool]
	// ExecutionMaxConcurrentRequests: execution.isolation.semaphore.maxConcurrentRequests = 10 (>= 0).
	ExecutionMaxConcurrentRequests *Property[int]
	// FallbackMaxConcurrentRequests: fallback.isolation.semaphore.maxConcurrentRequests = 10 (>= 0).
	FallbackMaxConcurrentRequests *Property[int]
	// FallbackEnabled: fallback.enabled = true.
	FallbackEnabled *Property[bool]
	// CircuitBreakerEnabled: circuitBreaker.enabled = true.
	CircuitBreakerEnabled *Property[bool]
	// CircuitBreakerRequestVolumeThreshold: circuitBreaker.requestVolumeThreshold = 20 (>= 0).
	CircuitBreakerRequestVolumeThreshold *Property[int]
	// CircuitBreakerSleepWindow: circuitBreaker.sleepWindowInMilliseconds = 5000 (>= 0).
	CircuitBreakerSleepWindow *Property[time.Duration]
	// CircuitBreakerErrorThresholdPercentage: circuitBreaker.errorThresholdPercentage = 50 (0..100).
	CircuitBreakerErrorThresholdPercentage *Property[int]
	// CircuitBreakerForceOpen: circuitBreaker.forceOpen = false (beats ForceClosed).
	CircuitBreakerForceOpen *Property[bool]
	// CircuitBreakerForceClosed: circuitBreaker.forceClosed = false.
	CircuitBreakerForceClosed *Property[bool]
	// RollingStatsWindow: metrics.rollingStats.timeInMilliseconds = 10000 (> 0, a multiple
	// of RollingStatsBuckets).
	RollingStatsWindow *Property[time.Duration]
	// RollingStatsBuckets: metrics.rollingStats.numBuckets = 10 (>= 1).
	RollingStatsBuckets *Property[int]
	// RollingPercentileEnabled: metrics.rollingPercentile.enabled = true.
	RollingPercentileEnabled *Property[bool]
	// RollingPercentileWindow: metrics.rollingPercentile.timeInMilliseconds = 60000 (> 0, a
	// multiple of RollingPercentileBuckets).
	RollingPercentileWindow *Property[time.Duration]
	// RollingPercentileBuckets: metrics.rollingPercentile.numBuckets = 6 (>= 1).
	RollingPercentileBuckets *Property[int]
	// RollingPercentileBucketSize: metrics.rollingPercentile.bucketSize = 100 (>= 1).
	RollingPercentileBucketSize *Property[int]
	// HealthSnapshotInterval: metrics.healthSnapshot.intervalInMilliseconds = 500 (> 0).
	HealthSnapshotInterval *Property[time.Duration]
	// RequestCacheEnabled: requestCache.enabled = true.
	RequestCacheEnabled *Property[bool]
	// RequestLogEnabled: requestLog.enabled = true.
	RequestLogEnabled *Property[bool]
	// ThreadPoolKeyOverride: threadPoolKeyOverride = "" (unset: use the command's own
	// thread-pool key).
	ThreadPoolKeyOverride *Property[string]

	set *propSet
}

func newCommandProperties(key string) (*CommandProperties, *propSet) {
	s := newPropSet("command", key)
	c := &CommandProperties{set: s}
	c.IsolationStrategy = add(s, "execution.isolation.strategy", Thread, isolationCodec, nil).prop
	c.ExecutionTimeout = add(s, "execution.isolation.thread.timeoutInMilliseconds", time.Second, millisCodec, positive).prop
	c.ExecutionTimeoutEnabled = add(s, "execution.timeout.enabled", true, boolCodec, nil).prop
	c.InterruptOnTimeout = add(s, "execution.isolation.thread.interruptOnTimeout", true, boolCodec, nil).prop
	c.InterruptOnFutureCancel = add(s, "execution.isolation.thread.interruptOnFutureCancel", false, boolCodec, nil).prop
	c.ExecutionMaxConcurrentRequests = add(s, "execution.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0)).prop
	c.FallbackMaxConcurrentRequests = add(s, "fallback.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0)).prop
	c.FallbackEnabled = add(s, "fallback.enabled", true, boolCodec, nil).prop
	c.CircuitBreakerEnabled = add(s, "circuitBreaker.enabled", true, boolCodec, nil).prop
	c.CircuitBreakerRequestVolumeThreshold = add(s, "circuitBreaker.requestVolumeThreshold", 20, intCodec, atLeast(0)).prop
	c.CircuitBreakerSleepWindow = add(s, "circuitBreaker.sleepWindowInMilliseconds", 5*time.Second, millisCodec, nonNegative).prop
	c.CircuitBreakerErrorThresholdPercentage = add(s, "circuitBreaker.errorThresholdPercentage", 50, intCodec, percentage).prop
	c.CircuitBreakerForceOpen = add(s, "circuitBreaker.forceOpen", false, boolCodec, nil).prop
	c.CircuitBreakerForceClosed = add(s, "circuitBreaker.forceClosed", false, boolCodec, nil).prop
	statsWindow := add(s, "metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive)
	c.RollingStatsWindow = statsWindow.prop
	statsBuckets := add(s, "metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1))
	c.RollingStatsBuckets = statsBuckets.prop
	c.RollingPercentileEnabled = add(s, "metrics.rollingPercentile.enabled", true, boolCodec, nil).prop
	pctWindow := add(s, "metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive)
	c.RollingPercentileWindow = pctWindow.prop
	pctBuckets := add(s, "metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1))
	c.RollingPercentileBuckets = pctBuckets.prop
	c.RollingPercentileBucketSize = add(s, "metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1)).prop
	c.HealthSnapshotInterval = add(s, "metrics.healthSnapshot.intervalInMilliseconds", 500*time.Millisecond, millisCodec, positive).prop
	c.RequestCacheEnabled = add(s, "requestCache.enabled", true, boolCodec, nil).prop
	c.RequestLogEnabled = add(s, "requestLog.enabled", true, boolCodec, nil).prop
	c.ThreadPoolKeyOverride = add(s, "threadPoolKeyOverride", "", strCodec, nil).prop
	s.checks = []check{divisible(statsWindow, statsBuckets), divisible(pctWindow, pctBuckets)}
	return c, s
}

// Key returns the command key.
func (c *CommandProperties) Key() string { return c.set.key }

// Settings lists every command property with its full Hystrix name and current value.
func (c *CommandProperties) Settings() []Setting { return c.set.settings() }
