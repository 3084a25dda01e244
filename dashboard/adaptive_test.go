package dashboard

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// A key under ADAPTIVE isolation shows its limit's gauges in its HystrixCommand frame (fields
// the Netflix dashboard ignores); the other keys' frames do not have them.
func TestAdaptiveGaugesInTheCommandFrame(t *testing.T) {
	tr := newRegistries(t)
	tr.m.Command("Adaptive").SetAdaptiveGauges(func() metrics.AdaptiveGauges {
		return metrics.AdaptiveGauges{Limit: 8, Inflight: 3, Queued: 1}
	})
	tr.m.Command("Plain")
	frames := map[string]map[string]any{}
	for _, c := range tr.reg.snapshot().Commands {
		c.Type = wire.TypeCommand
		b, err := json.Marshal(c)
		require.NoError(t, err)
		frames[c.Name] = assertShape(t, string(b))
	}
	assert.Equal(t, []any{8.0, 3.0, 1.0}, []any{frames["Adaptive"]["adaptiveLimit"],
		frames["Adaptive"]["adaptiveInflight"], frames["Adaptive"]["adaptiveQueue"]})
	assert.NotContains(t, frames["Plain"], "adaptiveLimit")
	assert.Contains(t, frames["Plain"], "rollingCountAdaptiveRejected")
}
