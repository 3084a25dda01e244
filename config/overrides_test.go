package config

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInCodeOverridesApply(t *testing.T) {
	store := NewStore()
	c, err := store.Command("Code", Overrides{
		"execution.isolation.strategy":                     "SEMAPHORE",
		"execution.isolation.thread.timeoutInMilliseconds": "50",
		"circuitBreaker.errorThresholdPercentage":          "0",
		"metrics.rollingStats.timeInMilliseconds":          "5000",
		"metrics.rollingStats.numBuckets":                  "5",
		"threadPoolKeyOverride":                            "pool",
	})
	require.NoError(t, err)
	assert.Equal(t, Semaphore, ExecutionIsolationStrategy.In(c).Get())
	assert.Equal(t, 50*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.Equal(t, 0, CircuitBreakerErrorThresholdPercentage.In(c).Get())
	assert.Equal(t, 5*time.Second, RollingStatsWindow.In(c).Get())
	assert.Equal(t, 5, RollingStatsBuckets.In(c).Get())
	assert.Equal(t, "pool", ThreadPoolKeyOverride.In(c).Get())
}

func TestInvalidInCodeOverride(t *testing.T) {
	for _, tc := range []struct {
		scope string
		in    Overrides
		want  string
	}{
		{"command", Overrides{timeoutName: "-1"},
			`config: hystrix.command.K.execution.isolation.thread.timeoutInMilliseconds (set in code): invalid value "-1": must be > 0`},
		{"command", Overrides{"circuitBreaker.errorThresholdPercentage": "150"},
			`config: hystrix.command.K.circuitBreaker.errorThresholdPercentage (set in code): invalid value "150": must be a percentage in 0..100`},
		{"command", Overrides{"execution.isolation.strategy": "GOROUTINE"},
			`hystrix.command.K.execution.isolation.strategy (set in code): invalid value "GOROUTINE"`},
		{"command", Overrides{"fallback.enabled": "1"},
			`hystrix.command.K.fallback.enabled (set in code): invalid value "1": not a boolean`},
		{"command", Overrides{"metrics.rollingStats.numBuckets": "3"},
			`hystrix.command.K.metrics.rollingStats.numBuckets (set in code): invalid value "3": does not divide hystrix.command.K.metrics.rollingStats.timeInMilliseconds=10000`},
		{"command", Overrides{"metrics.rollingPercentile.timeInMilliseconds": "1000"},
			`hystrix.command.K.metrics.rollingPercentile.timeInMilliseconds (set in code): invalid value "1000": not divisible by hystrix.command.K.metrics.rollingPercentile.numBuckets=6`},
		{"threadpool", Overrides{"coreSize": "-1"},
			`hystrix.threadpool.K.coreSize (set in code): invalid value "-1": must be >= 0`},
		{"threadpool", Overrides{"coreSize": "0"},
			`hystrix.threadpool.K.coreSize (set in code): invalid value "0": effective maximum pool size is 0`},
		{"threadpool", Overrides{"keepAliveTimeMinutes": "999999999"},
			`hystrix.threadpool.K.keepAliveTimeMinutes (set in code): invalid value "999999999": too large`},
		{"collapser", Overrides{"maxRequestsInBatch": "-5"},
			`hystrix.collapser.K.maxRequestsInBatch (set in code): invalid value "-5": must be >= 0`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			store := NewStore()
			var err error
			switch tc.scope {
			case "command":
				_, err = store.Command("K", tc.in)
			case "threadpool":
				_, err = store.ThreadPool("K", ThreadPoolOverrides(tc.in))
			case "collapser":
				_, err = store.Collapser("K", CollapserOverrides(tc.in))
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidValue)
			assert.NotErrorIs(t, err, ErrUnknownProperty)
			assert.ErrorContains(t, err, tc.want)
			var pe *PropertyError
			require.True(t, errors.As(err, &pe))
			assert.True(t, pe.InCode)
		})
	}
}

func TestInvalidOverrideIsNotCached(t *testing.T) {
	store := NewStore()
	_, err := store.Command("Retry", Overrides{timeoutName: "x"})
	require.Error(t, err)
	c, err := store.Command("Retry", Overrides{timeoutName: "20"})
	require.NoError(t, err)
	assert.Equal(t, 20*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.Len(t, store.Commands(), 1)
}

func TestUnknownOverrideName(t *testing.T) {
	store := NewStore()
	_, err := store.Command("Typo", Overrides{
		"execution.isolation.thread.timeoutInMillis": "500",
		"fallback.enabled":                           "false",
	})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnknownProperty)
	assert.NotErrorIs(t, err, ErrInvalidValue)
	assert.EqualError(t, err,
		`config: unknown property hystrix.command.Typo.execution.isolation.thread.timeoutInMillis (set in code) (value "500"); did you mean "execution.isolation.thread.timeoutInMilliseconds"?`)

	_, err = store.ThreadPool("Typo", ThreadPoolOverrides{"execution.isolation.strategy": "THREAD"})
	assert.ErrorIs(t, err, ErrUnknownProperty, "a command property is not a thread-pool property")
	assert.EqualError(t, err, `config: unknown property hystrix.threadpool.Typo.execution.isolation.strategy (set in code) (value "THREAD"); "execution.isolation.strategy" is a command property`)
	_, err = store.Collapser("Typo", CollapserOverrides{"coreSize": "1"})
	assert.ErrorIs(t, err, ErrUnknownProperty)
	assert.ErrorContains(t, err, `"coreSize" is a thread-pool property`)
	_, err = store.Command("Typo", Overrides{"hystrix.command.Typo.fallback.enabled": "false"})
	assert.ErrorContains(t, err, `set in code by short name: "fallback.enabled"`)
	_, err = store.Command("Typo", Overrides{"retries": "3"})
	assert.EqualError(t, err, `config: unknown property hystrix.command.Typo.retries (set in code) (value "3")`, "nothing close: no hint")
}

func TestAllOverrideErrorsReported(t *testing.T) {
	_, err := NewStore().Command("Many", Overrides{"nope": "1", timeoutName: "-1", "fallback.enabled": "x"})
	require.Error(t, err)
	assert.ErrorContains(t, err, "nope")
	assert.ErrorContains(t, err, timeoutName)
	assert.ErrorContains(t, err, "fallback.enabled")
}
