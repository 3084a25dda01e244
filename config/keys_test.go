package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeysSetTypedValues(t *testing.T) {
	in := Set(
		ExecutionIsolationStrategy.Of(Semaphore),
		ExecutionTimeout.Of(1500*time.Millisecond),
		CircuitBreakerForceOpen.Of(true),
		ExecutionMaxConcurrentRequests.Of(3),
		ThreadPoolKeyOverride.Of("shared"),
		ExecutionTimeout.Of(300*time.Millisecond), // a later entry wins
	)
	assert.Equal(t, Overrides{
		"execution.isolation.strategy":                        "SEMAPHORE",
		"execution.isolation.thread.timeoutInMilliseconds":    "300ms",
		"circuitBreaker.forceOpen":                            "true",
		"execution.isolation.semaphore.maxConcurrentRequests": "3",
		"threadPoolKeyOverride":                               "shared",
	}, in)
	c, err := NewStore().Command("Typed", in)
	require.NoError(t, err)
	assert.Equal(t, Semaphore, ExecutionIsolationStrategy.In(c).Get())
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.True(t, CircuitBreakerForceOpen.In(c).Get())
	assert.Equal(t, 3, ExecutionMaxConcurrentRequests.In(c).Get())
	assert.Equal(t, "shared", ThreadPoolKeyOverride.In(c).Get())

	p, err := NewStore().ThreadPool("Typed", Set(ThreadPoolCoreSize.Of(4), ThreadPoolKeepAlive.Of(2*time.Minute)))
	require.NoError(t, err)
	assert.Equal(t, 4, ThreadPoolCoreSize.In(p).Get())
	assert.Equal(t, 2*time.Minute, ThreadPoolKeepAlive.In(p).Get())
	col, err := NewStore().Collapser("Typed", Set(CollapserTimerDelay.Of(5*time.Millisecond)))
	require.NoError(t, err)
	assert.Equal(t, 5*time.Millisecond, CollapserTimerDelay.In(col).Get())
}

// TestEveryPropertyHasAKey checks that the Keys are the scope tables: one Key per
// property, in the order of the Settings.
func TestEveryPropertyHasAKey(t *testing.T) {
	c, err := NewStore().Command("K", nil)
	require.NoError(t, err)
	p, err := NewStore().ThreadPool("K", nil)
	require.NoError(t, err)
	col, err := NewStore().Collapser("K", nil)
	require.NoError(t, err)
	names := func(list []Setting) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = s.Name
		}
		return out
	}
	assert.Equal(t, names(c.Settings()), []string{
		ExecutionIsolationStrategy.Name(), ExecutionTimeout.Name(), ExecutionTimeoutEnabled.Name(),
		InterruptOnTimeout.Name(), InterruptOnFutureCancel.Name(), ExecutionMaxConcurrentRequests.Name(),
		FallbackMaxConcurrentRequests.Name(), FallbackEnabled.Name(), CircuitBreakerEnabled.Name(),
		CircuitBreakerRequestVolumeThreshold.Name(), CircuitBreakerSleepWindow.Name(),
		CircuitBreakerErrorThresholdPercentage.Name(), CircuitBreakerForceOpen.Name(),
		CircuitBreakerForceClosed.Name(), CircuitBreakerEvaluateOnFailure.Name(), RollingStatsWindow.Name(), RollingStatsBuckets.Name(),
		RollingPercentileEnabled.Name(), RollingPercentileWindow.Name(), RollingPercentileBuckets.Name(),
		rollingPercentileBucketSize.Name(), HealthSnapshotInterval.Name(), RequestCacheEnabled.Name(),
		RequestLogEnabled.Name(), ThreadPoolKeyOverride.Name(),
		RateLimitEnabled.Name(), RateLimitPermitsPerSecond.Name(), RateLimitBurst.Name(), RateLimitMaxWait.Name(),
		RateLimitGroup.Name(), FaultInjectionEnabled.Name(), FaultInjectionPercentage.Name(),
		FaultInjectionFault.Name(), FaultInjectionLatency.Name(),
		RetryMaxAttempts.Name(), RetryBackoff.Name(), RetryMaxBackoff.Name(), RetryOnTimeout.Name(),
		RetryTimeoutPerAttempt.Name(), BudgetEnabled.Name(), BudgetGroup.Name(), BudgetPercent.Name(),
		BudgetMinPerSecond.Name(), BudgetMaxTokens.Name(), BudgetTokenRatio.Name(),
		AdaptiveAlgorithmKey.Name(), AdaptiveMinLimit.Name(), AdaptiveMaxLimit.Name(), AdaptiveInitialLimit.Name(),
		AdaptiveWindow.Name(), AdaptiveQueueSize.Name(), AdaptiveReserved.Name(), AdaptiveGroup.Name(),
		StreamEstablishTimeout.Name(), StreamFirstItemTimeout.Name(), StreamIdleTimeout.Name(),
		StreamMaxLifetime.Name(), StreamMaxItemsInFlight.Name(), StreamOverflow.Name(), StreamOverflowGrace.Name(), StreamCutsCountForHealth.Name(),
		HedgeMaxHedges.Name(), HedgeDelay.Name(), HedgeDelayPercentile.Name(),
		ThrottleEnabled.Name(), ThrottleK.Name(), ThrottleWindow.Name(), ThrottleMinRequests.Name(),
	})
	assert.Equal(t, names(p.Settings()), []string{
		ThreadPoolCoreSize.Name(), ThreadPoolMaximumSize.Name(),
		ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.Name(), ThreadPoolMaxQueueSize.Name(),
		ThreadPoolQueueSizeRejectionThreshold.Name(), ThreadPoolKeepAlive.Name(),
		ThreadPoolRollingStatsWindow.Name(), ThreadPoolRollingStatsBuckets.Name(),
	})
	assert.Equal(t, names(col.Settings()), []string{
		CollapserMaxRequestsInBatch.Name(), CollapserTimerDelay.Name(), CollapserRequestCacheEnabled.Name(),
		CollapserRollingStatsWindow.Name(), CollapserRollingStatsBuckets.Name(),
		CollapserRollingPercentileEnabled.Name(), CollapserRollingPercentileWindow.Name(),
		CollapserRollingPercentileBuckets.Name(), collapserRollingPercentileBucketSize.Name(),
	})
}

func TestDurationSyntax(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"300", 300 * time.Millisecond, ""},
		{" 300ms ", 300 * time.Millisecond, ""},
		{"1.5s", 1500 * time.Millisecond, ""},
		{"1m", time.Minute, ""},
		{"-2", -2 * time.Millisecond, ""},
		{"1.5ms", 0, "not a whole number of milliseconds"},
		{"2147483648", 0, "out of the 32-bit integer range"},
		{"2147483648ms", 0, "out of the 32-bit integer range"},
		{"soon", 0, "not a duration (want whole milliseconds, e.g. 300, or Go syntax, e.g. 300ms)"},
		{"", 0, "not a duration"},
	} {
		d, err := millisCodec.parse(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, d, tc.in)
	}
	d, err := minutesCodec.parse("2m")
	require.NoError(t, err)
	assert.Equal(t, 2*time.Minute, d)
	_, err = minutesCodec.parse("90s")
	assert.EqualError(t, err, "not a whole number of minutes")
	_, err = minutesCodec.parse("999999999")
	assert.EqualError(t, err, "too large")
}

// The waits of a call (a hedge's delay, a retry's backoffs, a rate limit's wait, an
// injected latency, a collapser's window) keep microseconds: "6.6ms" is 6.6 ms, through a
// string and through a typed Of, and prints as it was given. A value finer than a
// microsecond fails at Define with the reason, as a nanosecond timeout does.
func TestTheWaitsOfACallKeepMicroseconds(t *testing.T) {
	_, store, _ := newTestStore(t)
	const d = 6600 * time.Microsecond
	p, err := store.Command("Waits", Overrides{"hedge.delayInMilliseconds": "6.6ms",
		"retry.backoffInMilliseconds": "250us", "retry.maxBackoffInMilliseconds": "1.5ms",
		"rateLimit.maxWaitInMilliseconds": "0.5ms", "faultInjection.latencyInMilliseconds": "6600us"})
	require.NoError(t, err)
	assert.Equal(t, d, HedgeDelay.In(p).Get())
	assert.Equal(t, "6.6ms", HedgeDelay.In(p).String())
	assert.Equal(t, 250*time.Microsecond, RetryBackoff.In(p).Get())
	assert.Equal(t, 1500*time.Microsecond, RetryMaxBackoff.In(p).Get())
	assert.Equal(t, 500*time.Microsecond, RateLimitMaxWait.In(p).Get())
	assert.Equal(t, d, FaultInjectionLatency.In(p).Get())

	p, err = store.Command("Typed", Set(HedgeDelay.Of(d), RetryBackoff.Of(7*time.Millisecond)))
	require.NoError(t, err)
	assert.Equal(t, d, HedgeDelay.In(p).Get())
	assert.Equal(t, "7", RetryBackoff.In(p).String(), "a whole number of milliseconds prints as Hystrix's")

	c, err := store.Collapser("Window", Set(CollapserTimerDelay.Of(300*time.Microsecond)))
	require.NoError(t, err)
	assert.Equal(t, 300*time.Microsecond, CollapserTimerDelay.In(c).Get())

	_, err = store.Command("Finer", Set(HedgeDelay.Of(d+100)))
	assert.ErrorContains(t, err, "not a whole number of microseconds")
	_, err = store.Command("Timeout", Set(ExecutionTimeout.Of(1500*time.Microsecond)))
	assert.ErrorContains(t, err, "not a whole number of milliseconds", "a timeout keeps Hystrix's unit")
	_, err = store.Command("Large", Overrides{"hedge.delayInMilliseconds": "2147483648ms"})
	assert.ErrorContains(t, err, "out of the 32-bit integer range")
}

func TestKeySetIn(t *testing.T) {
	mem, store, _ := newTestStore(t)
	c, err := store.Command("K", Set(ExecutionTimeout.Of(200*time.Millisecond)))
	require.NoError(t, err)
	p, err := store.ThreadPool("P", nil)
	require.NoError(t, err)

	require.NoError(t, ExecutionTimeout.SetDefaultIn(mem, 400*time.Millisecond))
	assert.Equal(t, 200*time.Millisecond, ExecutionTimeout.In(c).Get(), "the value set in code beats the default level")
	require.NoError(t, ExecutionTimeout.SetIn(mem, "K", 300*time.Millisecond))
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get(), "the key's dynamic value beats the value set in code")
	require.NoError(t, ThreadPoolCoreSize.SetIn(mem, "P", 4))
	require.NoError(t, ExecutionIsolationStrategy.SetIn(mem, "K", Semaphore))
	assert.Equal(t, 4, ThreadPoolCoreSize.In(p).Get())
	assert.Equal(t, Semaphore, ExecutionIsolationStrategy.In(c).Get())
	v, _ := mem.Get("hystrix.threadpool.P.coreSize")
	assert.Equal(t, "4", v)

	err = CircuitBreakerErrorThresholdPercentage.SetIn(mem, "K", 101)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.EqualError(t, err, `config: hystrix.command.K.circuitBreaker.errorThresholdPercentage: invalid value "101": must be a percentage in 0..100`)
	_, set := mem.Get("hystrix.command.K.circuitBreaker.errorThresholdPercentage")
	assert.False(t, set, "a refused value is not set")

	assert.ErrorIs(t, ExecutionTimeout.SetIn(mem, "", time.Second), ErrEmptyKey)
	err = ExecutionTimeout.SetIn(mem, "default", time.Second)
	assert.EqualError(t, err, `config: hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds: invalid value "1s": the key "default" names the default level of every key: use SetDefaultIn`)
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())
}
