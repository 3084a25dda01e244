package hystrixprom

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// A stream key's figures are its event counters: items (emit, whose rate is items/s),
// mid-stream failures, resumes and establishment timeouts; its lifetime is its total
// latency.
func TestCollectorExportsStreamFigures(t *testing.T) {
	rt, clk := newRuntime(t)
	c := New(rt)
	defer c.Close()
	s := command.Setter{Runtime: rt, CommandKey: "Tail", GroupKey: "Logs",
		Properties: config.Overrides{"execution.timeout.enabled": "false"}}
	cut := errors.New("reset")
	resumed := false
	st := command.NewStream[int](s, func(context.Context) rxgo.Observable { return rxgo.Just(1, 2, cut)() }).
		WithResume(1, func(context.Context, int, error) rxgo.Observable {
			resumed = true
			return rxgo.Just(3, cut)()
		})
	for range st.Values(context.Background()) {
	}
	assert.True(t, resumed)
	advance(rt, clk, 10*time.Second)
	events := byLabel(t, c, "hystrix_command_events_total", "event")
	assert.Equal(t, 3.0, events["emit"])
	assert.Equal(t, 1.0, events["mid_stream_failure"])
	assert.Equal(t, 1.0, events["stream_resumed"])
	assert.Equal(t, 1.0, events["failure"], "a cut after the first item is a failure, as in Hystrix")
}
