package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStageProperties(t *testing.T) {
	c, err := NewStore().Command("Stages", Overrides{
		"rateLimit.enabled": "true", "rateLimit.permitsPerSecond": "2.5", "rateLimit.burst": "3",
		"rateLimit.maxWaitInMilliseconds": "20ms", "rateLimit.group": " shared ",
		"faultInjection.enabled": "true", "faultInjection.percentage": "0.5", "faultInjection.fault": " hang ",
		"faultInjection.latencyInMilliseconds": "7",
	})
	require.NoError(t, err)
	assert.True(t, RateLimitEnabled.In(c).Get())
	assert.Equal(t, 2.5, RateLimitPermitsPerSecond.In(c).Get())
	assert.Equal(t, 3, RateLimitBurst.In(c).Get())
	assert.Equal(t, 20*time.Millisecond, RateLimitMaxWait.In(c).Get())
	assert.Equal(t, "shared", RateLimitGroup.In(c).Get())
	assert.Equal(t, 0.5, FaultInjectionPercentage.In(c).Get())
	assert.Equal(t, FaultHang, FaultInjectionFault.In(c).Get())
	assert.Equal(t, 7*time.Millisecond, FaultInjectionLatency.In(c).Get())

	for name, raw := range map[string]string{
		"rateLimit.permitsPerSecond":           "0",
		"rateLimit.burst":                      "0",
		"rateLimit.maxWaitInMilliseconds":      "-1",
		"faultInjection.percentage":            "100.5",
		"faultInjection.fault":                 "SLOW",
		"faultInjection.latencyInMilliseconds": "-5",
	} {
		err := validateCommand("Bad", Overrides{name: raw})
		assert.ErrorContains(t, err, name, "%s=%s", name, raw)
	}
	assert.ErrorContains(t, validateCommand("Bad", Overrides{"rateLimit.permitsPerSecond": "NaN"}), "not a finite number")
	assert.ErrorContains(t, validateCommand("Bad", Overrides{"faultInjection.fault": "SLOW"}), "LATENCY")
	for f := FaultError; f <= FaultBadRequest; f++ {
		g, err := parseFault(f.String())
		require.NoError(t, err)
		assert.Equal(t, f, g)
	}
}

func TestThrottleProperties(t *testing.T) {
	c, err := NewStore().Command("Throttled", Overrides{"throttle.enabled": "true", "throttle.k": "1.5",
		"throttle.windowInMilliseconds": "60000", "throttle.minRequests": "0"})
	require.NoError(t, err)
	assert.True(t, ThrottleEnabled.In(c).Get())
	assert.Equal(t, 1.5, ThrottleK.In(c).Get())
	assert.Equal(t, time.Minute, ThrottleWindow.In(c).Get())
	assert.Zero(t, ThrottleMinRequests.In(c).Get())
	for name, raw := range map[string]string{
		"throttle.k": "0.9", "throttle.windowInMilliseconds": "0", "throttle.minRequests": "-1",
	} {
		assert.ErrorContains(t, validateCommand("Bad", Overrides{name: raw}), name, "%s=%s", name, raw)
	}
	assert.ErrorContains(t, validateCommand("Bad", Overrides{"throttle.k": "0.9"}), "must be >= 1")
}
