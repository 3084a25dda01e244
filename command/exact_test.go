package command_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

var errDependency = errors.New("dependency failed")

// TestMillionExecutesFlatOutAreExact: 1,000,000 Executes of one key from 1 to 16
// goroutines, flat out, one in four failing into its fallback; the key's health, rolling
// and cumulative counts are exact every time. Under the race detector (ten times slower)
// only the most contended run keeps the full million; the others run 100,000.
func TestMillionExecutesFlatOutAreExact(t *testing.T) {
	for _, g := range []int{1, 2, 4, 8, 16} {
		n := int64(1_000_000)
		if raceEnabled && g != 16 {
			n = 100_000
		}
		t.Run(fmt.Sprintf("goroutines=%d", g), func(t *testing.T) {
			clk := clock.NewFake(time.Unix(1_000_000, 0))
			rt := command.NewRuntime(command.WithClock(clk))
			defer rt.Close()
			s := command.Setter{Runtime: rt, CommandKey: "Exact", Properties: config.Overrides{
				"execution.isolation.strategy":                        "SEMAPHORE",
				"execution.isolation.semaphore.maxConcurrentRequests": "100",
			}}
			var wg sync.WaitGroup
			for w := range g {
				wg.Go(func() {
					for i := w; i < int(n); i += g {
						_, err := command.New(s, func(context.Context) (int, error) {
							if i%4 == 0 {
								return 0, errDependency
							}
							return i, nil
						}).WithFallback(func(context.Context, error) (int, error) { return -1, nil }).
							Execute(context.Background())
						if err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			clk.Advance(time.Second)
			rt.Metrics().Flush()
			m := rt.Metrics().Command("Exact")
			assert.Equal(t, metrics.NewHealthCounts(n, n/4), m.HealthCounts())
			for e, want := range map[metrics.EventType]int64{
				metrics.Success: 3 * n / 4, metrics.Failure: n / 4, metrics.FallbackSuccess: n / 4,
			} {
				assert.Equal(t, want, m.RollingCount(e), "rolling %v", e)
				assert.Equal(t, want, m.CumulativeCount(e), "cumulative %v", e)
			}
			require.Zero(t, m.CurrentConcurrency())
		})
	}
}
