package config

import (
	"time"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// CommandProperties are the properties of one command key (Hystrix's
// HystrixCommandProperties), resolved as hystrix.command.<KEY>.X, then the value set in
// code, then hystrix.command.default.X, then the built-in default. Read one with its Key:
// config.ExecutionTimeout.In(p).Get(); each Key's doc gives the Hystrix short name, the
// default and the range.
type CommandProperties struct{ k keyState }

type cmd = CommandProperties

// The command properties of Hystrix, and the switches of the stages beyond it that the
// command package reads (rate limit, fault injection, retry, budget, ADAPTIVE isolation,
// streams, hedging, throttling).
var (
	// ExecutionIsolationStrategy is execution.isolation.strategy = THREAD (or SEMAPHORE, or
	// ADAPTIVE).
	ExecutionIsolationStrategy = key(commandScope, "execution.isolation.strategy", Thread, isolationCodec, nil)
	// ExecutionTimeout is execution.isolation.thread.timeoutInMilliseconds = 1000 (> 0).
	ExecutionTimeout = key(commandScope, "execution.isolation.thread.timeoutInMilliseconds", time.Second, millisCodec, positive)
	// ExecutionTimeoutEnabled is execution.timeout.enabled = true.
	ExecutionTimeoutEnabled = key(commandScope, "execution.timeout.enabled", true, boolCodec, nil)
	// InterruptOnTimeout is execution.isolation.thread.interruptOnTimeout = true.
	InterruptOnTimeout = key(commandScope, "execution.isolation.thread.interruptOnTimeout", true, boolCodec, nil)
	// InterruptOnFutureCancel is execution.isolation.thread.interruptOnFutureCancel = false.
	InterruptOnFutureCancel = key(commandScope, "execution.isolation.thread.interruptOnFutureCancel", false, boolCodec, nil)
	// ExecutionMaxConcurrentRequests is execution.isolation.semaphore.maxConcurrentRequests =
	// 10 (>= 0).
	ExecutionMaxConcurrentRequests = key(commandScope, "execution.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0))
	// FallbackMaxConcurrentRequests is fallback.isolation.semaphore.maxConcurrentRequests = 10
	// (>= 0).
	FallbackMaxConcurrentRequests = key(commandScope, "fallback.isolation.semaphore.maxConcurrentRequests", 10, intCodec, atLeast(0))
	// FallbackEnabled is fallback.enabled = true.
	FallbackEnabled = key(commandScope, "fallback.enabled", true, boolCodec, nil)
	// CircuitBreakerEnabled is circuitBreaker.enabled = true.
	CircuitBreakerEnabled = key(commandScope, "circuitBreaker.enabled", true, boolCodec, nil)
	// CircuitBreakerRequestVolumeThreshold is circuitBreaker.requestVolumeThreshold = 20 (>=
	// 0).
	CircuitBreakerRequestVolumeThreshold = key(commandScope, "circuitBreaker.requestVolumeThreshold", 20, intCodec, atLeast(0))
	// CircuitBreakerSleepWindow is circuitBreaker.sleepWindowInMilliseconds = 5000 (>= 0).
	CircuitBreakerSleepWindow = key(commandScope, "circuitBreaker.sleepWindowInMilliseconds", 5*time.Second, millisCodec, nonNegative)
	// CircuitBreakerErrorThresholdPercentage is circuitBreaker.errorThresholdPercentage = 50
	// (0..100).
	CircuitBreakerErrorThresholdPercentage = key(commandScope, "circuitBreaker.errorThresholdPercentage", 50, intCodec, percentage)
	// CircuitBreakerForceOpen is circuitBreaker.forceOpen = false (beats forceClosed).
	CircuitBreakerForceOpen = key(commandScope, "circuitBreaker.forceOpen", false, boolCodec, nil)
	// CircuitBreakerForceClosed is circuitBreaker.forceClosed = false.
	CircuitBreakerForceClosed = key(commandScope, "circuitBreaker.forceClosed", false, boolCodec, nil)
	// CircuitBreakerEvaluateOnFailure is circuitBreaker.evaluateOnFailure = false. Beyond
	// Hystrix: when true, every failure reported to a CLOSED breaker re-evaluates the
	// thresholds at once from the exact live health counts (the closed window plus the bucket
	// in progress), so the breaker opens within a call of crossing them instead of at the next
	// health snapshot. Successes cost nothing extra either way.
	CircuitBreakerEvaluateOnFailure = key(commandScope, "circuitBreaker.evaluateOnFailure", false, boolCodec, nil)
	// RollingStatsWindow is metrics.rollingStats.timeInMilliseconds = 10000 (> 0, a multiple
	// of metrics.rollingStats.numBuckets).
	RollingStatsWindow = key(commandScope, "metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive)
	// RollingStatsBuckets is metrics.rollingStats.numBuckets = 10 (>= 1).
	RollingStatsBuckets = key(commandScope, "metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1))
	// RollingPercentileEnabled is metrics.rollingPercentile.enabled = true.
	RollingPercentileEnabled = key(commandScope, "metrics.rollingPercentile.enabled", true, boolCodec, nil)
	// RollingPercentileWindow is metrics.rollingPercentile.timeInMilliseconds = 60000 (> 0, a
	// multiple of metrics.rollingPercentile.numBuckets).
	RollingPercentileWindow = key(commandScope, "metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive)
	// RollingPercentileBuckets is metrics.rollingPercentile.numBuckets = 6 (>= 1).
	RollingPercentileBuckets = key(commandScope, "metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1))
	// rollingPercentileBucketSize is metrics.rollingPercentile.bucketSize = 100 (>= 1),
	// accepted for Hystrix files and not used: the histograms keep every latency.
	rollingPercentileBucketSize = key(commandScope, "metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1))
	// HealthSnapshotInterval is metrics.healthSnapshot.intervalInMilliseconds = 500 (> 0).
	HealthSnapshotInterval = key(commandScope, "metrics.healthSnapshot.intervalInMilliseconds", 500*time.Millisecond, millisCodec, positive)
	// RequestCacheEnabled is requestCache.enabled = true.
	RequestCacheEnabled = key(commandScope, "requestCache.enabled", true, boolCodec, nil)
	// RequestLogEnabled is requestLog.enabled = true.
	RequestLogEnabled = key(commandScope, "requestLog.enabled", true, boolCodec, nil)
	// ThreadPoolKeyOverride is threadPoolKeyOverride = "" (unset: use the command's own
	// thread-pool key).
	ThreadPoolKeyOverride = key(commandScope, "threadPoolKeyOverride", "", strCodec, nil)

	// RateLimitEnabled is rateLimit.enabled = false.
	RateLimitEnabled = key(commandScope, "rateLimit.enabled", false, boolCodec, nil)
	// RateLimitPermitsPerSecond is rateLimit.permitsPerSecond = 100 (> 0).
	RateLimitPermitsPerSecond = key(commandScope, "rateLimit.permitsPerSecond", 100.0, floatCodec, positiveFloat)
	// RateLimitBurst is rateLimit.burst = 10 (>= 1): the permits a quiet limiter grants at
	// once.
	RateLimitBurst = key(commandScope, "rateLimit.burst", 10, intCodec, atLeast(1))
	// RateLimitMaxWait is rateLimit.maxWaitInMilliseconds = 0 (>= 0): how long an execution
	// may wait for a permit; 0 refuses at once.
	RateLimitMaxWait = key(commandScope, "rateLimit.maxWaitInMilliseconds", 0, waitCodec, nonNegative)
	// RateLimitGroup is rateLimit.group = "" (unset: the command key): keys naming the same
	// group with the same rate and burst share one limiter.
	RateLimitGroup = key(commandScope, "rateLimit.group", "", strCodec, nil)

	// FaultInjectionEnabled is faultInjection.enabled = false.
	FaultInjectionEnabled = key(commandScope, "faultInjection.enabled", false, boolCodec, nil)
	// FaultInjectionPercentage is faultInjection.percentage = 0 (0..100): the share of
	// executions the fault is injected into.
	FaultInjectionPercentage = key(commandScope, "faultInjection.percentage", 0.0, floatCodec, percentFloat)
	// FaultInjectionFault is faultInjection.fault = ERROR: what is injected (see Fault).
	FaultInjectionFault = key(commandScope, "faultInjection.fault", FaultError, faultCodec, nil)
	// FaultInjectionLatency is faultInjection.latencyInMilliseconds = 100 (>= 0): the delay of
	// a LATENCY fault.
	FaultInjectionLatency = key(commandScope, "faultInjection.latencyInMilliseconds", 100*time.Millisecond, waitCodec, nonNegative)
	// RetryMaxAttempts is retry.maxAttempts = 1 (>= 1): attempts in all; 1 is no retry.
	RetryMaxAttempts = key(commandScope, "retry.maxAttempts", 1, intCodec, atLeast(1))
	// RetryBackoff is retry.backoffInMilliseconds = 50 (>= 0): the base of the exponential
	// backoff with full jitter before the n-th retry, a random wait in [0, base x 2^(n-1)).
	RetryBackoff = key(commandScope, "retry.backoffInMilliseconds", 50*time.Millisecond, waitCodec, nonNegative)
	// RetryMaxBackoff is retry.maxBackoffInMilliseconds = 1000 (>= 0): the cap of a backoff.
	RetryMaxBackoff = key(commandScope, "retry.maxBackoffInMilliseconds", time.Second, waitCodec, nonNegative)
	// RetryOnTimeout is retry.onTimeout = false: a TIMEOUT is retried too (a FAILURE always
	// is).
	RetryOnTimeout = key(commandScope, "retry.onTimeout", false, boolCodec, nil)
	// RetryTimeoutPerAttempt is retry.timeoutPerAttempt = false: true gives each attempt the
	// whole execution timeout; false, the attempts and backoffs share it, from the first start.
	RetryTimeoutPerAttempt = key(commandScope, "retry.timeoutPerAttempt", false, boolCodec, nil)
	// BudgetEnabled is budget.enabled = true: extra attempts (retries, hedges) are capped by
	// the budget of budget.group.
	BudgetEnabled = key(commandScope, "budget.enabled", true, boolCodec, nil)
	// BudgetGroup is budget.group = "" (the key's own budget): keys naming the same group (and
	// the same budget settings) share one budget.
	BudgetGroup = key(commandScope, "budget.group", "", strCodec, nil)
	// BudgetPercent is budget.percent = 20 (>= 0): the extra attempts of the rolling second
	// are at most this share of its original requests...
	BudgetPercent = key(commandScope, "budget.percent", 20, intCodec, atLeast(0))
	// BudgetMinPerSecond is budget.minPerSecond = 10 (>= 0): ...or this many when that is
	// more.
	BudgetMinPerSecond = key(commandScope, "budget.minPerSecond", 10, intCodec, atLeast(0))
	// BudgetMaxTokens is budget.maxTokens = 0 (>= 0): above 0, gRPC's retry throttling instead
	// of the ratio: a bucket of maxTokens, less one per failed attempt, plus tokenRatio per
	// successful one; extra attempts while more than half is left.
	BudgetMaxTokens = key(commandScope, "budget.maxTokens", 0, intCodec, atLeast(0))
	// BudgetTokenRatio is budget.tokenRatioInThousandths = 100 (>= 0): gRPC's tokenRatio, in
	// thousandths of a token (100 is 0.1).
	BudgetTokenRatio = key(commandScope, "budget.tokenRatioInThousandths", 100, intCodec, atLeast(0))

	// ADAPTIVE isolation (beyond Hystrix), read by keys whose execution.isolation.strategy
	// is ADAPTIVE (see package adaptive).

	// AdaptiveAlgorithmKey is execution.isolation.adaptive.algorithm = GRADIENT2 (or VEGAS).
	AdaptiveAlgorithmKey = key(commandScope, "execution.isolation.adaptive.algorithm", Gradient2, adaptiveAlgorithmCodec, nil)
	// AdaptiveMinLimit is execution.isolation.adaptive.minLimit = 1 (>= 1).
	AdaptiveMinLimit = key(commandScope, "execution.isolation.adaptive.minLimit", 1, intCodec, atLeast(1))
	// AdaptiveMaxLimit is execution.isolation.adaptive.maxLimit = 200 (>= minLimit).
	AdaptiveMaxLimit = key(commandScope, "execution.isolation.adaptive.maxLimit", 200, intCodec, atLeast(1))
	// AdaptiveInitialLimit is execution.isolation.adaptive.initialLimit = 4
	// (minLimit..maxLimit).
	AdaptiveInitialLimit = key(commandScope, "execution.isolation.adaptive.initialLimit", 4, intCodec, atLeast(1))
	// AdaptiveWindow is execution.isolation.adaptive.windowInMilliseconds = 250 (> 0): the
	// smoothing window, how long the limit gathers samples before it moves.
	AdaptiveWindow = key(commandScope, "execution.isolation.adaptive.windowInMilliseconds", 250*time.Millisecond, millisCodec, positive)
	// AdaptiveQueueSize is execution.isolation.adaptive.queueSize = 0 (>= 0): how many calls
	// may wait for a permit (LIFO, highest criticality first).
	AdaptiveQueueSize = key(commandScope, "execution.isolation.adaptive.queueSize", 0, intCodec, atLeast(0))
	// AdaptiveReserved is execution.isolation.adaptive.reserved =
	// CRITICAL=30,SHEDDABLE_PLUS=20: per criticality, the percentage of the limit lower levels
	// may not use.
	AdaptiveReserved = key(commandScope, "execution.isolation.adaptive.reserved", Reserved{adaptive.Critical: 30, adaptive.SheddablePlus: 20}, reservedCodec, validReserved)
	// AdaptiveGroup is execution.isolation.adaptive.group = "" (the key's own limit): keys of
	// the same group share one limit (keys that call the same dependency).
	AdaptiveGroup = key(commandScope, "execution.isolation.adaptive.group", "", strCodec, nil)

	// StreamEstablishTimeout is stream.establishTimeoutInMilliseconds = 0 (>= 0): from the
	// start (or a resume) until the stream is established (command.StreamEstablished, or its
	// first item). The stream.* limits are beyond Hystrix, each off at 0.
	StreamEstablishTimeout = key(commandScope, "stream.establishTimeoutInMilliseconds", time.Duration(0), millisCodec, nonNegative)
	// StreamFirstItemTimeout is stream.firstItemTimeoutInMilliseconds = 0 (>= 0): from the
	// establishment until the first item.
	StreamFirstItemTimeout = key(commandScope, "stream.firstItemTimeoutInMilliseconds", time.Duration(0), millisCodec, nonNegative)
	// StreamIdleTimeout is stream.idleTimeoutInMilliseconds = 0 (>= 0): from an item (or a
	// resume) until the next.
	StreamIdleTimeout = key(commandScope, "stream.idleTimeoutInMilliseconds", time.Duration(0), millisCodec, nonNegative)
	// StreamMaxLifetime is stream.maxLifetimeInMilliseconds = 0 (>= 0): from the start until
	// the stream completes, resumes included.
	StreamMaxLifetime = key(commandScope, "stream.maxLifetimeInMilliseconds", time.Duration(0), millisCodec, nonNegative)
	// StreamMaxItemsInFlight is stream.maxItemsInFlight = 0 (>= 0): items the source may have
	// produced that the subscriber has not taken; 0 leaves the source's own channel as it is
	// (unbuffered for RxGo's).
	StreamMaxItemsInFlight = key(commandScope, "stream.maxItemsInFlight", 0, intCodec, atLeast(0))
	// StreamOverflow is stream.overflow = BLOCK (BLOCK or FAIL): at maxItemsInFlight the
	// source is held (BLOCK) or the stream fails (FAIL).
	StreamOverflow = key(commandScope, "stream.overflow", StreamBlock, strCodec, oneOf(StreamBlock, StreamFail))
	// StreamOverflowGrace is stream.overflowGraceInMilliseconds = 100 (>= 0): with overflow
	// FAIL, the subscriber is behind when it takes an item later than this after it was
	// offered, the source's maxItemsInFlight items waiting behind it.
	StreamOverflowGrace = key(commandScope, "stream.overflowGraceInMilliseconds", 100*time.Millisecond, millisCodec, nonNegative)
	// StreamCutsCountForHealth is stream.cutsCountForHealth = true: a stream that fails after
	// its first item is a FAILURE (as in Hystrix), marked MID_STREAM_FAILURE; false records
	// the MID_STREAM_FAILURE alone, which the breaker does not count (streams cut by design,
	// as long watches behind a load balancer).
	StreamCutsCountForHealth = key(commandScope, "stream.cutsCountForHealth", true, boolCodec, nil)

	// HedgeMaxHedges is hedge.maxHedges = 0 (0..10): extra attempts started while the first
	// has not answered, one per delay; 0 is no hedging.
	HedgeMaxHedges = key(commandScope, "hedge.maxHedges", 0, intCodec, within(0, 10))
	// HedgeDelay is hedge.delayInMilliseconds = 100 (>= 0): the wait before each hedge, and
	// the fallback of hedge.delayPercentile while the key has too few samples.
	HedgeDelay = key(commandScope, "hedge.delayInMilliseconds", 100*time.Millisecond, waitCodec, nonNegative)
	// HedgeDelayPercentile is hedge.delayPercentile = 0 (0..99): above 0, the wait before each
	// hedge is the key's own rolling run-latency percentile (90, 95, 99).
	HedgeDelayPercentile = key(commandScope, "hedge.delayPercentile", 0, intCodec, within(0, 99))

	// ThrottleEnabled is throttle.enabled = false: graded throttling (Google SRE's
	// client-side adaptive throttling) refuses a share of the calls
	// locally as the dependency accepts fewer of them.
	ThrottleEnabled = key(commandScope, "throttle.enabled", false, boolCodec, nil)
	// ThrottleK is throttle.k = 2 (>= 1): the multiplier K; the dependency receives about K
	// times what it accepts.
	ThrottleK = key(commandScope, "throttle.k", 2.0, floatCodec, atLeastFloat(1))
	// ThrottleWindow is throttle.windowInMilliseconds = 120000 (> 0): how long requests and
	// accepts are counted.
	ThrottleWindow = key(commandScope, "throttle.windowInMilliseconds", 2*time.Minute, millisCodec, positive)
	// ThrottleMinRequests is throttle.minRequests = 20 (>= 0): below this many requests in
	// the window nothing is refused.
	ThrottleMinRequests = key(commandScope, "throttle.minRequests", 20, intCodec, atLeast(0))
)

// The values of stream.overflow.
const (
	StreamBlock = "BLOCK" // the source is held at stream.maxItemsInFlight
	StreamFail  = "FAIL"  // the stream fails at stream.maxItemsInFlight
)

// commandScope is the table of every command property, shared by every command key; the
// properties join it as they are declared.
var commandScope = newScope("command", "command", func(o *cmd) *keyState { return &o.k })

func init() {
	sc := commandScope
	sc.checks = []check[cmd]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		divisible(sc, "metrics.rollingPercentile.timeInMilliseconds", "metrics.rollingPercentile.numBuckets"),
		limitRange(sc),
	}
}

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
