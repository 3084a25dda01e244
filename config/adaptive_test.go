package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

func TestAdaptiveProperties(t *testing.T) {
	c, err := NewStore().Command("A", Overrides{
		"execution.isolation.strategy":                      "ADAPTIVE",
		"execution.isolation.adaptive.algorithm":            "vegas",
		"execution.isolation.adaptive.minLimit":             "2",
		"execution.isolation.adaptive.initialLimit":         "8",
		"execution.isolation.adaptive.maxLimit":             "64",
		"execution.isolation.adaptive.windowInMilliseconds": "100ms",
		"execution.isolation.adaptive.queueSize":            "4",
		"execution.isolation.adaptive.reserved":             "critical_plus=20, critical=30",
		"execution.isolation.adaptive.group":                "users-db",
	})
	require.NoError(t, err)
	assert.Equal(t, Adaptive, ExecutionIsolationStrategy.In(c).Get())
	assert.Equal(t, Vegas, AdaptiveAlgorithmKey.In(c).Get())
	assert.Equal(t, []int{2, 8, 64, 4}, []int{AdaptiveMinLimit.In(c).Get(), AdaptiveInitialLimit.In(c).Get(), AdaptiveMaxLimit.In(c).Get(), AdaptiveQueueSize.In(c).Get()})
	assert.Equal(t, 100*time.Millisecond, AdaptiveWindow.In(c).Get())
	assert.Equal(t, Reserved{adaptive.CriticalPlus: 20, adaptive.Critical: 30}, AdaptiveReserved.In(c).Get())
	assert.Equal(t, "CRITICAL_PLUS=20,CRITICAL=30", AdaptiveReserved.In(c).String())
	assert.Equal(t, [adaptive.NumCriticalities]float64{adaptive.CriticalPlus: 0.2, adaptive.Critical: 0.3}, AdaptiveReserved.In(c).Get().Shares())
	assert.Equal(t, "users-db", AdaptiveGroup.In(c).Get())
}

func TestAdaptivePropertiesAreValidated(t *testing.T) {
	for _, tc := range []struct {
		in   Overrides
		want string
	}{
		{Overrides{"execution.isolation.strategy": "ADAPTIV"},
			`invalid value "ADAPTIV": unknown isolation strategy (want THREAD, SEMAPHORE or ADAPTIVE)`},
		{Overrides{"execution.isolation.adaptive.algorithm": "AIMD"},
			`invalid value "AIMD": unknown adaptive algorithm (want GRADIENT2 or VEGAS)`},
		{Overrides{"execution.isolation.adaptive.minLimit": "0"}, `invalid value "0": must be >= 1`},
		{Overrides{"execution.isolation.adaptive.minLimit": "30"},
			`hystrix.command.V.execution.isolation.adaptive.minLimit (set in code): invalid value "30": want minLimit <= initialLimit <= maxLimit (now 30, 4, 200)`},
		{Overrides{"execution.isolation.adaptive.maxLimit": "10", "execution.isolation.adaptive.initialLimit": "12"},
			`hystrix.command.V.execution.isolation.adaptive.initialLimit (set in code): invalid value "12": want minLimit <= initialLimit <= maxLimit (now 1, 12, 10)`},
		{Overrides{"execution.isolation.adaptive.queueSize": "-1"}, `invalid value "-1": must be >= 0`},
		{Overrides{"execution.isolation.adaptive.windowInMilliseconds": "0"}, `invalid value "0": must be > 0`},
		{Overrides{"execution.isolation.adaptive.reserved": "CRITICAL=60,CRITICAL_PLUS=40"},
			`invalid value "CRITICAL=60,CRITICAL_PLUS=40": the shares add up to 100 % (at most 90)`},
		{Overrides{"execution.isolation.adaptive.reserved": "SHEDDABLE=10"},
			`SHEDDABLE is the lowest criticality: there is nobody to reserve a share from`},
		{Overrides{"execution.isolation.adaptive.reserved": "URGENT=10"},
			`unknown criticality "URGENT" (want CRITICAL_PLUS, CRITICAL or SHEDDABLE_PLUS)`},
		{Overrides{"execution.isolation.adaptive.reserved": "CRITICAL"}, `"CRITICAL" is not LEVEL=percent`},
		{Overrides{"execution.isolation.adaptive.reserved": "CRITICAL=lots"}, `CRITICAL: "lots" is not a percentage in 0..90`},
	} {
		err := validateCommand("V", tc.in)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want)
	}
	err := validateCommand("V", Overrides{"execution.isolation.adaptive.maxlimit": "10"})
	assert.ErrorContains(t, err, `did you mean "execution.isolation.adaptive.maxLimit"?`)
}
