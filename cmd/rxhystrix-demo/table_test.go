package main

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// TestTableShowsTheLastSecond: each line counts what happened in the second before it,
// not a share of the rolling window, and with the demo's latency window the first line
// has latencies.
func TestTableShowsTheLastSecond(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	rt := command.NewRuntime(command.WithClock(clk))
	defer rt.Close()
	props := config.Set(config.ExecutionIsolationStrategy.Of(config.Semaphore))
	maps.Copy(props, latencyWindow)
	s := command.Setter{Runtime: rt, CommandKey: "K", Properties: props}
	execute := func(n int, err error) {
		for range n {
			_, _ = command.New(s, func(context.Context) (int, error) {
				clk.Advance(2 * time.Millisecond) // the run takes 2 ms
				return 0, err
			}).Execute(context.Background())
		}
	}
	tbl := newTable(rt)
	line := func() []string {
		clk.Advance(time.Second)
		rt.Metrics().Flush()
		var b strings.Builder
		tbl.print(&b, time.Second)
		lines := strings.Split(b.String(), "\n")
		require.Len(t, lines, 5, b.String()) // heading, header, K, blank, end
		return strings.Fields(lines[2])
	}

	execute(30, nil)
	assert.Equal(t, []string{"K", "30", "0", "CLOSED", "2ms", "2ms", "0", "0", "0"}, line())
	execute(10, nil)
	execute(10, errors.New("down"))
	assert.Equal(t, []string{"K", "20", "20", "CLOSED", "2ms", "2ms", "0", "0", "0"}, line(),
		"20 requests in the last second; 10 errors of 50 in the 10 s health window")
	assert.Equal(t, []string{"K", "0", "20", "CLOSED", "2ms", "2ms", "0", "0", "0"}, line(), "a quiet second")
}
