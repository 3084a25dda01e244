package dashboard

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// A stream key's events beyond Hystrix are extra rollingCount fields of its command
// object, left out while zero so that other keys send what Hystrix sends.
func TestStreamEventsAreExtraFields(t *testing.T) {
	tr := newRegistries(t)
	cp, err := tr.reg.Properties.Command("Tail", nil)
	require.NoError(t, err)
	m := tr.m.CommandFor("Tail", cp)
	for _, events := range [][]metrics.EventType{
		{metrics.Emit, metrics.Emit, metrics.StreamResumed, metrics.Success},
		{metrics.Emit, metrics.StreamIdleTimeout, metrics.StreamMidFailure, metrics.FallbackMissing},
		{metrics.StreamEstablishTimeout, metrics.FallbackMissing},
	} {
		var counts metrics.EventCounts
		for _, e := range events {
			counts = counts.Add(e, 1)
		}
		res := metrics.NewExecutionResult(counts, true, true, 0, 0)
		m.MarkStart()
		m.MarkComplete(res)
	}
	tr.m.Flush()
	tr.clk.Advance(time.Second)
	tr.m.Flush()
	c := commandCounts(m)
	assert.Equal(t, wire.CommandCounts{Emit: 3, Success: 1, FallbackMissing: 2, ExceptionsThrown: 2,
		EstablishTimeout: 1, IdleTimeout: 1, MidStreamFailure: 1, StreamResumed: 1}, c)
	js, err := json.Marshal(c)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"rollingCountMidStreamFailure":1`)
	js, err = json.Marshal(wire.CommandCounts{})
	require.NoError(t, err)
	assert.NotContains(t, string(js), "MidStreamFailure")
}
