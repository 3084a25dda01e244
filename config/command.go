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
	// CircuitBreakerEvaluateOnFailure: circuitBreaker.evaluateOnFailure = false. Beyond
	// Hystrix: when true, every failure reported to a CLOSED breaker re-evaluates the
	// thresholds at once from the exact live health counts (the closed window plus the
	// bucket in progress), so the breaker opens within a call of crossing them instead of
	// at the next health snapshot. Successes cost nothing extra either way.
	CircuitBreakerEvaluateOnFailure *Property[bool]
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

	k keyState
}

type cmd = CommandProperties

// commandScope is the table of every command property, shared by every command key.
var commandScope = func() *scope[cmd] {
	sc := newScope("command", func(c *cmd) *keyState { return &c.k },
		prop("execution.isolation.strategy", Thread, isolationCodec, nil,
			func(c *cmd) **Property[IsolationStrategy] { return &c.IsolationStrategy }),
		prop("execution.isolation.thread.timeoutInMilliseconds", time.Second, millisCodec, positive,
			func(c *cmd) **Property[time.Duration] { return &c.ExecutionTimeout }),
		prop("execution.timeout.enabled", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.ExecutionTimeoutEnabled }),
		prop("execution.isolation.thread.interruptOnTimeout", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.InterruptOnTimeout }),
		prop("execution.isolation.thread.interruptOnFutureCancel", false, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.InterruptOnFutureCancel }),
		prop("execution.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0),
			func(c *cmd) **Property[int] { return &c.ExecutionMaxConcurrentRequests }),
		prop("fallback.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0),
			func(c *cmd) **Property[int] { return &c.FallbackMaxConcurrentRequests }),
		prop("fallback.enabled", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.FallbackEnabled }),
		prop("circuitBreaker.enabled", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.CircuitBreakerEnabled }),
		prop("circuitBreaker.requestVolumeThreshold", 20, intCodec, atLeast(0),
			func(c *cmd) **Property[int] { return &c.CircuitBreakerRequestVolumeThreshold }),
		prop("circuitBreaker.sleepWindowInMilliseconds", 5*time.Second, millisCodec, nonNegative,
			func(c *cmd) **Property[time.Duration] { return &c.CircuitBreakerSleepWindow }),
		prop("circuitBreaker.errorThresholdPercentage", 50, intCodec, percentage,
			func(c *cmd) **Property[int] { return &c.CircuitBreakerErrorThresholdPercentage }),
		prop("circuitBreaker.forceOpen", false, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.CircuitBreakerForceOpen }),
		prop("circuitBreaker.forceClosed", false, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.CircuitBreakerForceClosed }),
		prop("circuitBreaker.evaluateOnFailure", false, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.CircuitBreakerEvaluateOnFailure }),
		prop("metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive,
			func(c *cmd) **Property[time.Duration] { return &c.RollingStatsWindow }),
		prop("metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1),
			func(c *cmd) **Property[int] { return &c.RollingStatsBuckets }),
		prop("metrics.rollingPercentile.enabled", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.RollingPercentileEnabled }),
		prop("metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive,
			func(c *cmd) **Property[time.Duration] { return &c.RollingPercentileWindow }),
		prop("metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1),
			func(c *cmd) **Property[int] { return &c.RollingPercentileBuckets }),
		prop("metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1),
			func(c *cmd) **Property[int] { return &c.RollingPercentileBucketSize }),
		prop("metrics.healthSnapshot.intervalInMilliseconds", 500*time.Millisecond, millisCodec, positive,
			func(c *cmd) **Property[time.Duration] { return &c.HealthSnapshotInterval }),
		prop("requestCache.enabled", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.RequestCacheEnabled }),
		prop("requestLog.enabled", true, boolCodec, nil,
			func(c *cmd) **Property[bool] { return &c.RequestLogEnabled }),
		prop("threadPoolKeyOverride", "", strCodec, nil,
			func(c *cmd) **Property[string] { return &c.ThreadPoolKeyOverride }),
	)
	sc.checks = []check[cmd]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		divisible(sc, "metrics.rollingPercentile.timeInMilliseconds", "metrics.rollingPercentile.numBuckets"),
	}
	return sc
}()

// Key returns the command key.
func (c *CommandProperties) Key() string { return c.k.key }

// Settings lists every command property with its full Hystrix name and current value.
func (c *CommandProperties) Settings() []Setting { return commandScope.settings(c) }

func (c *CommandProperties) state() *keyState { return &c.k }

func (c *CommandProperties) refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	return commandScope.refresh(c, lookup, scratch)
}
