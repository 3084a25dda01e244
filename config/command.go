package config

import "time"

// CommandProperties are the properties of one command key (Hystrix's HystrixCommandProperties), resolved as
// hystrix.command.<KEY>.X, then the value set in code, then hystrix.command.default.X,
// then the built-in default. Each field's doc gives the Hystrix short name and default.
type CommandProperties struct {
	// IsolationStrategy: execution.isolation.strategy = THREAD (or SEMAPHORE, or ADAPTIVE).
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

	// The rate limiter stage (beyond Hystrix; see package command and package ratelimit).

	// RateLimitEnabled: rateLimit.enabled = false.
	RateLimitEnabled *Property[bool]
	// RateLimitPermitsPerSecond: rateLimit.permitsPerSecond = 100 (> 0).
	RateLimitPermitsPerSecond *Property[float64]
	// RateLimitBurst: rateLimit.burst = 10 (>= 1): the permits a quiet limiter grants at once.
	RateLimitBurst *Property[int]
	// RateLimitMaxWait: rateLimit.maxWaitInMilliseconds = 0 (>= 0): how long an execution
	// may wait for a permit; 0 refuses at once.
	RateLimitMaxWait *Property[time.Duration]
	// RateLimitGroup: rateLimit.group = "" (unset: the command key): keys naming the same
	// group with the same rate and burst share one limiter.
	RateLimitGroup *Property[string]

	// The fault injection stage (beyond Hystrix; see package command).

	// FaultInjectionEnabled: faultInjection.enabled = false.
	FaultInjectionEnabled *Property[bool]
	// FaultInjectionPercentage: faultInjection.percentage = 0 (0..100): the share of
	// executions the fault is injected into.
	FaultInjectionPercentage *Property[float64]
	// FaultInjectionFault: faultInjection.fault = ERROR: what is injected (see Fault).
	FaultInjectionFault *Property[Fault]
	// FaultInjectionLatency: faultInjection.latencyInMilliseconds = 100 (>= 0): the
	// delay of a LATENCY fault.
	FaultInjectionLatency *Property[time.Duration]
	// Retries and the budget of extra attempts (beyond Hystrix: command/stage_retry.go,
	// the budget package).

	// RetryMaxAttempts: retry.maxAttempts = 1 (>= 1): attempts in all; 1 is no retry.
	RetryMaxAttempts *Property[int]
	// RetryBackoff: retry.backoffInMilliseconds = 50 (>= 0): the base of the exponential
	// backoff with full jitter before the n-th retry, a random wait in [0, base x 2^(n-1)).
	RetryBackoff *Property[time.Duration]
	// RetryMaxBackoff: retry.maxBackoffInMilliseconds = 1000 (>= 0): the cap of a backoff.
	RetryMaxBackoff *Property[time.Duration]
	// RetryOnTimeout: retry.onTimeout = false: a TIMEOUT is retried too (a FAILURE
	// always is).
	RetryOnTimeout *Property[bool]
	// RetryTimeoutPerAttempt: retry.timeoutPerAttempt = false: each attempt gets the whole
	// execution timeout; false: the attempts and backoffs share it, from the first start.
	RetryTimeoutPerAttempt *Property[bool]
	// BudgetEnabled: budget.enabled = true: extra attempts (retries, hedges) are capped by
	// the budget of budget.group.
	BudgetEnabled *Property[bool]
	// BudgetGroup: budget.group = "" (the key's own budget): keys naming the same group (and
	// the same budget settings) share one budget.
	BudgetGroup *Property[string]
	// BudgetPercent: budget.percent = 20 (>= 0): the extra attempts of the rolling 10 s are
	// at most this share of its original requests...
	BudgetPercent *Property[int]
	// BudgetMinPerSecond: budget.minPerSecond = 10 (>= 0): ...or this many per second of the
	// window when that is more.
	BudgetMinPerSecond *Property[int]
	// BudgetMaxTokens: budget.maxTokens = 0 (>= 0): above 0, gRPC's retry throttling instead
	// of the ratio: a bucket of maxTokens, less one per failed attempt, plus tokenRatio per
	// successful one; extra attempts while more than half is left.
	BudgetMaxTokens *Property[int]
	// BudgetTokenRatio: budget.tokenRatioInThousandths = 100 (>= 0): gRPC's tokenRatio, in
	// thousandths of a token (100 is 0.1).
	BudgetTokenRatio *Property[int]
	// ADAPTIVE isolation (beyond Hystrix; see package adaptive and config/adaptive.go).

	// AdaptiveAlgorithm: execution.isolation.adaptive.algorithm = GRADIENT2 (or VEGAS).
	AdaptiveAlgorithm *Property[AdaptiveAlgorithm]
	// AdaptiveMinLimit: execution.isolation.adaptive.minLimit = 1 (>= 1).
	AdaptiveMinLimit *Property[int]
	// AdaptiveMaxLimit: execution.isolation.adaptive.maxLimit = 200 (>= minLimit).
	AdaptiveMaxLimit *Property[int]
	// AdaptiveInitialLimit: execution.isolation.adaptive.initialLimit = 4 (minLimit..maxLimit).
	AdaptiveInitialLimit *Property[int]
	// AdaptiveWindow: execution.isolation.adaptive.windowInMilliseconds = 250 (> 0): the
	// smoothing window, how long the limit gathers samples before it moves.
	AdaptiveWindow *Property[time.Duration]
	// AdaptiveQueueSize: execution.isolation.adaptive.queueSize = 0 (>= 0): how many calls
	// may wait for a permit (LIFO, highest criticality first).
	AdaptiveQueueSize *Property[int]
	// AdaptiveReserved: execution.isolation.adaptive.reserved = CRITICAL=30,SHEDDABLE_PLUS=20:
	// per criticality, the percentage of the limit lower levels may not use.
	AdaptiveReserved *Property[Reserved]
	// AdaptiveGroup: execution.isolation.adaptive.group = "" (the key's own limit): keys
	// of the same group share one limit (keys that call the same dependency).
	AdaptiveGroup *Property[string]
	// Streams (command.Stream): beyond Hystrix, each limit 0 (off) unless set.
	// StreamEstablishTimeout: stream.establishTimeoutInMilliseconds = 0 (>= 0): from the
	// start (or a resume) until the stream is established (command.StreamEstablished, or
	// its first item).
	StreamEstablishTimeout *Property[time.Duration]
	// StreamFirstItemTimeout: stream.firstItemTimeoutInMilliseconds = 0 (>= 0): from the
	// establishment until the first item.
	StreamFirstItemTimeout *Property[time.Duration]
	// StreamIdleTimeout: stream.idleTimeoutInMilliseconds = 0 (>= 0): from an item (or a
	// resume) until the next.
	StreamIdleTimeout *Property[time.Duration]
	// StreamMaxLifetime: stream.maxLifetimeInMilliseconds = 0 (>= 0): from the start until
	// the stream completes, resumes included.
	StreamMaxLifetime *Property[time.Duration]
	// StreamMaxItemsInFlight: stream.maxItemsInFlight = 0 (>= 0): items the source may
	// have produced that the subscriber has not taken; 0 leaves the source's own channel
	// as it is (unbuffered for RxGo's).
	StreamMaxItemsInFlight *Property[int]
	// StreamOverflow: stream.overflow = BLOCK (BLOCK or FAIL): at maxItemsInFlight the
	// source is held (BLOCK) or the stream fails (FAIL).
	StreamOverflow *Property[string]

	// Hedging (beyond Hystrix: command/stage_hedge.go), its extra attempts from the budget.

	// HedgeMaxHedges: hedge.maxHedges = 0 (0..10): extra attempts started while the first
	// has not answered, one per delay; 0 is no hedging.
	HedgeMaxHedges *Property[int]
	// HedgeDelay: hedge.delayInMilliseconds = 100 (>= 0): the wait before each hedge, and
	// the fallback of hedge.delayPercentile while the key has too few samples.
	HedgeDelay *Property[time.Duration]
	// HedgeDelayPercentile: hedge.delayPercentile = 0 (0..99): above 0, the wait before
	// each hedge is the key's own rolling run-latency percentile (90, 95, 99).
	HedgeDelayPercentile *Property[int]

	k keyState
}

type cmd = CommandProperties

// The Keys of the command properties, named like the field of CommandProperties they set
// (IsolationStrategy's is ExecutionIsolationStrategy); the fields give defaults and ranges.
var (
	// ExecutionIsolationStrategy is execution.isolation.strategy.
	ExecutionIsolationStrategy = key("execution.isolation.strategy", Thread, isolationCodec, nil,
		func(c *cmd) **Property[IsolationStrategy] { return &c.IsolationStrategy })
	// ExecutionTimeout is execution.isolation.thread.timeoutInMilliseconds.
	ExecutionTimeout = key("execution.isolation.thread.timeoutInMilliseconds", time.Second, millisCodec, positive,
		func(c *cmd) **Property[time.Duration] { return &c.ExecutionTimeout })
	// ExecutionTimeoutEnabled is execution.timeout.enabled.
	ExecutionTimeoutEnabled = key("execution.timeout.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.ExecutionTimeoutEnabled })
	// InterruptOnTimeout is execution.isolation.thread.interruptOnTimeout.
	InterruptOnTimeout = key("execution.isolation.thread.interruptOnTimeout", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.InterruptOnTimeout })
	// InterruptOnFutureCancel is execution.isolation.thread.interruptOnFutureCancel.
	InterruptOnFutureCancel = key("execution.isolation.thread.interruptOnFutureCancel", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.InterruptOnFutureCancel })
	// ExecutionMaxConcurrentRequests is execution.isolation.semaphore.maxConcurrentRequests.
	ExecutionMaxConcurrentRequests = key("execution.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.ExecutionMaxConcurrentRequests })
	// FallbackMaxConcurrentRequests is fallback.isolation.semaphore.maxConcurrentRequests.
	FallbackMaxConcurrentRequests = key("fallback.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.FallbackMaxConcurrentRequests })
	// FallbackEnabled is fallback.enabled.
	FallbackEnabled = key("fallback.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.FallbackEnabled })
	// CircuitBreakerEnabled is circuitBreaker.enabled.
	CircuitBreakerEnabled = key("circuitBreaker.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.CircuitBreakerEnabled })
	// CircuitBreakerRequestVolumeThreshold is circuitBreaker.requestVolumeThreshold.
	CircuitBreakerRequestVolumeThreshold = key("circuitBreaker.requestVolumeThreshold", 20, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.CircuitBreakerRequestVolumeThreshold })
	// CircuitBreakerSleepWindow is circuitBreaker.sleepWindowInMilliseconds.
	CircuitBreakerSleepWindow = key("circuitBreaker.sleepWindowInMilliseconds", 5*time.Second, millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.CircuitBreakerSleepWindow })
	// CircuitBreakerErrorThresholdPercentage is circuitBreaker.errorThresholdPercentage.
	CircuitBreakerErrorThresholdPercentage = key("circuitBreaker.errorThresholdPercentage", 50, intCodec, percentage,
		func(c *cmd) **Property[int] { return &c.CircuitBreakerErrorThresholdPercentage })
	// CircuitBreakerForceOpen is circuitBreaker.forceOpen.
	CircuitBreakerForceOpen = key("circuitBreaker.forceOpen", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.CircuitBreakerForceOpen })
	// CircuitBreakerForceClosed is circuitBreaker.forceClosed.
	CircuitBreakerForceClosed = key("circuitBreaker.forceClosed", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.CircuitBreakerForceClosed })
	// CircuitBreakerEvaluateOnFailure is circuitBreaker.evaluateOnFailure (beyond Hystrix).
	CircuitBreakerEvaluateOnFailure = key("circuitBreaker.evaluateOnFailure", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.CircuitBreakerEvaluateOnFailure })
	// RollingStatsWindow is metrics.rollingStats.timeInMilliseconds.
	RollingStatsWindow = key("metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive,
		func(c *cmd) **Property[time.Duration] { return &c.RollingStatsWindow })
	// RollingStatsBuckets is metrics.rollingStats.numBuckets.
	RollingStatsBuckets = key("metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1),
		func(c *cmd) **Property[int] { return &c.RollingStatsBuckets })
	// RollingPercentileEnabled is metrics.rollingPercentile.enabled.
	RollingPercentileEnabled = key("metrics.rollingPercentile.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.RollingPercentileEnabled })
	// RollingPercentileWindow is metrics.rollingPercentile.timeInMilliseconds.
	RollingPercentileWindow = key("metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive,
		func(c *cmd) **Property[time.Duration] { return &c.RollingPercentileWindow })
	// RollingPercentileBuckets is metrics.rollingPercentile.numBuckets.
	RollingPercentileBuckets = key("metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1),
		func(c *cmd) **Property[int] { return &c.RollingPercentileBuckets })
	// RollingPercentileBucketSize is metrics.rollingPercentile.bucketSize.
	RollingPercentileBucketSize = key("metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1),
		func(c *cmd) **Property[int] { return &c.RollingPercentileBucketSize })
	// HealthSnapshotInterval is metrics.healthSnapshot.intervalInMilliseconds.
	HealthSnapshotInterval = key("metrics.healthSnapshot.intervalInMilliseconds", 500*time.Millisecond, millisCodec, positive,
		func(c *cmd) **Property[time.Duration] { return &c.HealthSnapshotInterval })
	// RequestCacheEnabled is requestCache.enabled.
	RequestCacheEnabled = key("requestCache.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.RequestCacheEnabled })
	// RequestLogEnabled is requestLog.enabled.
	RequestLogEnabled = key("requestLog.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.RequestLogEnabled })
	// ThreadPoolKeyOverride is threadPoolKeyOverride.
	ThreadPoolKeyOverride = key("threadPoolKeyOverride", "", strCodec, nil,
		func(c *cmd) **Property[string] { return &c.ThreadPoolKeyOverride })

	// RateLimitEnabled is rateLimit.enabled.
	RateLimitEnabled = key("rateLimit.enabled", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.RateLimitEnabled })
	// RateLimitPermitsPerSecond is rateLimit.permitsPerSecond.
	RateLimitPermitsPerSecond = key("rateLimit.permitsPerSecond", 100.0, floatCodec, positiveFloat,
		func(c *cmd) **Property[float64] { return &c.RateLimitPermitsPerSecond })
	// RateLimitBurst is rateLimit.burst.
	RateLimitBurst = key("rateLimit.burst", 10, intCodec, atLeast(1),
		func(c *cmd) **Property[int] { return &c.RateLimitBurst })
	// RateLimitMaxWait is rateLimit.maxWaitInMilliseconds.
	RateLimitMaxWait = key("rateLimit.maxWaitInMilliseconds", 0, millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.RateLimitMaxWait })
	// RateLimitGroup is rateLimit.group.
	RateLimitGroup = key("rateLimit.group", "", strCodec, nil,
		func(c *cmd) **Property[string] { return &c.RateLimitGroup })

	// FaultInjectionEnabled is faultInjection.enabled.
	FaultInjectionEnabled = key("faultInjection.enabled", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.FaultInjectionEnabled })
	// FaultInjectionPercentage is faultInjection.percentage.
	FaultInjectionPercentage = key("faultInjection.percentage", 0.0, floatCodec, percentFloat,
		func(c *cmd) **Property[float64] { return &c.FaultInjectionPercentage })
	// FaultInjectionFault is faultInjection.fault.
	FaultInjectionFault = key("faultInjection.fault", FaultError, faultCodec, nil,
		func(c *cmd) **Property[Fault] { return &c.FaultInjectionFault })
	// FaultInjectionLatency is faultInjection.latencyInMilliseconds.
	FaultInjectionLatency = key("faultInjection.latencyInMilliseconds", 100*time.Millisecond, millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.FaultInjectionLatency })
	// RetryMaxAttempts is retry.maxAttempts.
	RetryMaxAttempts = key("retry.maxAttempts", 1, intCodec, atLeast(1),
		func(c *cmd) **Property[int] { return &c.RetryMaxAttempts })
	// RetryBackoff is retry.backoffInMilliseconds.
	RetryBackoff = key("retry.backoffInMilliseconds", 50*time.Millisecond, millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.RetryBackoff })
	// RetryMaxBackoff is retry.maxBackoffInMilliseconds.
	RetryMaxBackoff = key("retry.maxBackoffInMilliseconds", time.Second, millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.RetryMaxBackoff })
	// RetryOnTimeout is retry.onTimeout.
	RetryOnTimeout = key("retry.onTimeout", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.RetryOnTimeout })
	// RetryTimeoutPerAttempt is retry.timeoutPerAttempt.
	RetryTimeoutPerAttempt = key("retry.timeoutPerAttempt", false, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.RetryTimeoutPerAttempt })
	// BudgetEnabled is budget.enabled.
	BudgetEnabled = key("budget.enabled", true, boolCodec, nil,
		func(c *cmd) **Property[bool] { return &c.BudgetEnabled })
	// BudgetGroup is budget.group.
	BudgetGroup = key("budget.group", "", strCodec, nil,
		func(c *cmd) **Property[string] { return &c.BudgetGroup })
	// BudgetPercent is budget.percent.
	BudgetPercent = key("budget.percent", 20, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.BudgetPercent })
	// BudgetMinPerSecond is budget.minPerSecond.
	BudgetMinPerSecond = key("budget.minPerSecond", 10, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.BudgetMinPerSecond })
	// BudgetMaxTokens is budget.maxTokens.
	BudgetMaxTokens = key("budget.maxTokens", 0, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.BudgetMaxTokens })
	// BudgetTokenRatio is budget.tokenRatioInThousandths.
	BudgetTokenRatio = key("budget.tokenRatioInThousandths", 100, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.BudgetTokenRatio })
	// StreamEstablishTimeout is stream.establishTimeoutInMilliseconds.
	StreamEstablishTimeout = key("stream.establishTimeoutInMilliseconds", time.Duration(0), millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.StreamEstablishTimeout })
	// StreamFirstItemTimeout is stream.firstItemTimeoutInMilliseconds.
	StreamFirstItemTimeout = key("stream.firstItemTimeoutInMilliseconds", time.Duration(0), millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.StreamFirstItemTimeout })
	// StreamIdleTimeout is stream.idleTimeoutInMilliseconds.
	StreamIdleTimeout = key("stream.idleTimeoutInMilliseconds", time.Duration(0), millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.StreamIdleTimeout })
	// StreamMaxLifetime is stream.maxLifetimeInMilliseconds.
	StreamMaxLifetime = key("stream.maxLifetimeInMilliseconds", time.Duration(0), millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.StreamMaxLifetime })
	// StreamMaxItemsInFlight is stream.maxItemsInFlight.
	StreamMaxItemsInFlight = key("stream.maxItemsInFlight", 0, intCodec, atLeast(0),
		func(c *cmd) **Property[int] { return &c.StreamMaxItemsInFlight })
	// StreamOverflow is stream.overflow.
	StreamOverflow = key("stream.overflow", StreamBlock, strCodec, oneOf(StreamBlock, StreamFail),
		func(c *cmd) **Property[string] { return &c.StreamOverflow })

	// HedgeMaxHedges is hedge.maxHedges.
	HedgeMaxHedges = key("hedge.maxHedges", 0, intCodec, within(0, 10),
		func(c *cmd) **Property[int] { return &c.HedgeMaxHedges })
	// HedgeDelay is hedge.delayInMilliseconds.
	HedgeDelay = key("hedge.delayInMilliseconds", 100*time.Millisecond, millisCodec, nonNegative,
		func(c *cmd) **Property[time.Duration] { return &c.HedgeDelay })
	// HedgeDelayPercentile is hedge.delayPercentile.
	HedgeDelayPercentile = key("hedge.delayPercentile", 0, intCodec, within(0, 99),
		func(c *cmd) **Property[int] { return &c.HedgeDelayPercentile })
)

// The values of stream.overflow.
const (
	StreamBlock = "BLOCK" // the source is held at stream.maxItemsInFlight
	StreamFail  = "FAIL"  // the stream fails at stream.maxItemsInFlight
)

// commandScope is the table of every command property, shared by every command key.
var commandScope = func() *scope[cmd] {
	sc := newScope("command", "command", func(c *cmd) *keyState { return &c.k },
		ExecutionIsolationStrategy.d,
		ExecutionTimeout.d,
		ExecutionTimeoutEnabled.d,
		InterruptOnTimeout.d,
		InterruptOnFutureCancel.d,
		ExecutionMaxConcurrentRequests.d,
		FallbackMaxConcurrentRequests.d,
		FallbackEnabled.d,
		CircuitBreakerEnabled.d,
		CircuitBreakerRequestVolumeThreshold.d,
		CircuitBreakerSleepWindow.d,
		CircuitBreakerErrorThresholdPercentage.d,
		CircuitBreakerForceOpen.d,
		CircuitBreakerForceClosed.d,
		CircuitBreakerEvaluateOnFailure.d,
		RollingStatsWindow.d,
		RollingStatsBuckets.d,
		RollingPercentileEnabled.d,
		RollingPercentileWindow.d,
		RollingPercentileBuckets.d,
		RollingPercentileBucketSize.d,
		HealthSnapshotInterval.d,
		RequestCacheEnabled.d,
		RequestLogEnabled.d,
		ThreadPoolKeyOverride.d,
		RateLimitEnabled.d,
		RateLimitPermitsPerSecond.d,
		RateLimitBurst.d,
		RateLimitMaxWait.d,
		RateLimitGroup.d,
		FaultInjectionEnabled.d,
		FaultInjectionPercentage.d,
		FaultInjectionFault.d,
		FaultInjectionLatency.d,
		RetryMaxAttempts.d,
		RetryBackoff.d,
		RetryMaxBackoff.d,
		RetryOnTimeout.d,
		RetryTimeoutPerAttempt.d,
		BudgetEnabled.d,
		BudgetGroup.d,
		BudgetPercent.d,
		BudgetMinPerSecond.d,
		BudgetMaxTokens.d,
		BudgetTokenRatio.d,
		AdaptiveAlgorithmKey.d,
		AdaptiveMinLimit.d,
		AdaptiveMaxLimit.d,
		AdaptiveInitialLimit.d,
		AdaptiveWindow.d,
		AdaptiveQueueSize.d,
		AdaptiveReserved.d,
		AdaptiveGroup.d,
		StreamEstablishTimeout.d,
		StreamFirstItemTimeout.d,
		StreamIdleTimeout.d,
		StreamMaxLifetime.d,
		StreamMaxItemsInFlight.d,
		StreamOverflow.d,
		HedgeMaxHedges.d,
		HedgeDelay.d,
		HedgeDelayPercentile.d,
	)
	sc.checks = []check[cmd]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		divisible(sc, "metrics.rollingPercentile.timeInMilliseconds", "metrics.rollingPercentile.numBuckets"),
		limitRange(sc),
	}
	return sc
}()

// Key returns the command key.
func (c *CommandProperties) Key() string { return c.k.key }

// Settings lists every command property with its full Hystrix name and current value.
func (c *CommandProperties) Settings() []Setting { return commandScope.settings(c) }

// Version returns a number that changes whenever a property of the key takes a new value
// (one atomic load): a reader that derives something from several properties (the
// command package assembles a key's chain from them) compares it to know when to derive
// it again.
func (c *CommandProperties) Version() uint64 { return c.k.version.Load() }

func (c *CommandProperties) state() *keyState { return &c.k }

func (c *CommandProperties) refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	return commandScope.refresh(c, lookup, scratch)
}
