package hystrixotel

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

// A stream key's figures are hystrix.command.events series: items (emit), mid-stream
// failures and resumes; the span of a stream carries its events.
func TestMetricsCountStreamEvents(t *testing.T) {
	e := newEnv(t)
	cut := errors.New("reset")
	st := command.NewStream[int](command.Setter{Runtime: e.rt, CommandKey: "Tail",
		Properties: config.Overrides{"execution.timeout.enabled": "false"}},
		func(context.Context) rxgo.Observable { return rxgo.Just(1, 2, cut)() }).
		WithResume(1, func(context.Context, int, error) rxgo.Observable { return rxgo.Just(3, cut)() })
	for range st.Values(t.Context()) {
	}
	e.clk.Advance(time.Second)
	e.rt.Metrics().Flush()
	got := e.events("Tail")
	assert.Equal(t, int64(3), got["emit"])
	assert.Equal(t, int64(1), got["mid_stream_failure"])
	assert.Equal(t, int64(1), got["stream_resumed"])
	assert.Equal(t, int64(1), got["failure"], "a cut after the first item is a failure, as in Hystrix")
}
