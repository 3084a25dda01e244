package config

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	assert.NoError(t, validateCommand("V", Set(ExecutionTimeout.Of(300*time.Millisecond))))
	assert.NoError(t, validateCommand("V", nil))
	assert.ErrorIs(t, validateCommand("", nil), ErrEmptyKey)

	err := validateCommand("V", Overrides{
		"execution.timeout.enable":                "false",
		"circuitBreaker.errorThresholdPercentage": "150",
	})
	var errs []*PropertyError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var pe *PropertyError
		require.True(t, errors.As(e, &pe))
		errs = append(errs, pe)
	}
	require.Len(t, errs, 2)
	assert.Equal(t, "hystrix.command.V.execution.timeout.enable", errs[0].Name)
	assert.Equal(t, `did you mean "execution.timeout.enabled"?`, errs[0].Hint)
	assert.EqualError(t, errs[1], `config: hystrix.command.V.circuitBreaker.errorThresholdPercentage (set in code): invalid value "150": must be a percentage in 0..100`)

	assert.EqualError(t, validateCommand("V", Set(ExecutionTimeout.Of(-time.Second))),
		`config: hystrix.command.V.execution.isolation.thread.timeoutInMilliseconds (set in code): invalid value "-1s": must be > 0`)
	assert.EqualError(t, validateCommand("V", Set(RollingStatsBuckets.Of(3))),
		`config: hystrix.command.V.metrics.rollingStats.numBuckets (set in code): invalid value "3": does not divide hystrix.command.V.metrics.rollingStats.timeInMilliseconds=10000`)
	assert.EqualError(t, ValidateThreadPool("P", Set(ThreadPoolCoreSize.Of(0))),
		`config: hystrix.threadpool.P.coreSize (set in code): invalid value "0": effective maximum pool size is 0 (hystrix.threadpool.P.maximumSize=10, hystrix.threadpool.P.allowMaximumSizeToDivergeFromCoreSize=false)`)
	assert.ErrorIs(t, validateCollapser("C", Set(CollapserTimerDelay.Of(0))), ErrInvalidValue)
	assert.ErrorIs(t, validateCollapser("C", CollapserOverrides{"timerDelay": "10"}), ErrUnknownProperty)
}

func TestValidateHoldsNothing(t *testing.T) {
	store := NewStore()
	require.NoError(t, validateCommand("Nothing", Set(ExecutionTimeout.Of(time.Second))))
	assert.Empty(t, store.Commands())
}

// TestCachedKeyStillValidates: the first creation wins, but a later call with a typo
// must not pass silently.
func TestCachedKeyStillValidates(t *testing.T) {
	store := NewStore()
	first, err := store.Command("Again", Set(ExecutionTimeout.Of(300*time.Millisecond)))
	require.NoError(t, err)

	same, err := store.Command("Again", Overrides{timeoutName: "300ms"})
	require.NoError(t, err)
	assert.Same(t, first, same)
	other, err := store.Command("Again", Set(ExecutionTimeout.Of(3*time.Second)))
	require.NoError(t, err, "a valid later value is not applied, and no error")
	assert.Same(t, first, other)
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(other).Get())

	_, err = store.Command("Again", Overrides{"execution.timeout.enable": "false"})
	assert.ErrorIs(t, err, ErrUnknownProperty)
	assert.ErrorContains(t, err, `did you mean "execution.timeout.enabled"?`)
	_, err = store.ThreadPool("Again", nil)
	require.NoError(t, err)
	_, err = store.ThreadPool("Again", ThreadPoolOverrides{"coreSize": "-1"})
	assert.ErrorIs(t, err, ErrInvalidValue)
}

func TestDiff(t *testing.T) {
	first := Set(ExecutionTimeout.Of(300*time.Millisecond), FallbackEnabled.Of(true))
	assert.Empty(t, first.Diff(Overrides{timeoutName: "300", "fallback.enabled": "TRUE"}), "same values, other spellings")
	assert.Empty(t, Overrides{}.Diff(Overrides{timeoutName: "1000"}), "unset counts as the default")
	assert.Empty(t, Overrides(nil).Diff(nil))

	diffs := first.Diff(Overrides{timeoutName: "3000", "coreSize": "4", "nope": "x", "execution.isolation.strategy": "SEMAPHORE"})
	assert.Equal(t, []Difference{
		{Name: "coreSize", First: "10", Second: "4"},
		{Name: "execution.isolation.strategy", First: "THREAD", Second: "SEMAPHORE"},
		{Name: timeoutName, First: "300", Second: "3000"},
		{Name: "nope", First: "", Second: "x"},
	}, diffs)
	assert.Equal(t, timeoutName+": 300 -> 3000", diffs[2].String(), "in one unit, not 300ms -> 3000")
}
