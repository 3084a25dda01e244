package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/collapsed"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// A command that holds rare fields without a request-cache slot (a collapser's batch
// command, cancelled when every caller of its batch left; a cache key with the request
// cache off) must not look like a cancelled cache hit: one execution, one CANCELLED (the
// soak found it counted twice).
func TestCancelledCommandWithoutCacheSlotCountsOneCancel(t *testing.T) {
	cases := map[string]struct {
		props []string
		mark  func(*Command[string])
		want  []metrics.EventType
	}{
		"batch command": {
			mark: func(c *Command[string]) { c.MarkCollapsed(collapsed.Of(3)) },
			want: ev(metrics.Cancelled, metrics.Collapsed, metrics.Collapsed, metrics.Collapsed),
		},
		"cache off": {
			props: []string{"requestCache.enabled", "false"},
			mark:  func(c *Command[string]) { c.WithCacheKey("k") },
			want:  ev(metrics.Cancelled),
		},
	}
	for name, tc := range cases {
		for _, iso := range []string{"SEMAPHORE", "THREAD"} {
			t.Run(name+"/"+iso, func(t *testing.T) {
				e := newEnv(t)
				ctx, cancel := context.WithCancel(context.Background())
				started := make(chan struct{})
				cmd := New(e.setter("C", append(tc.props, "execution.isolation.strategy", iso)...), blockUntilDone(started))
				tc.mark(cmd)
				go func() {
					<-started
					cancel()
				}()
				_, err := cmd.Execute(ctx)
				assert.ErrorIs(t, err, context.Canceled)
				assert.Equal(t, tc.want, cmd.ExecutionEvents())
				e.clk.Advance(time.Second)
				e.rt.Metrics().Flush()
				m := e.rt.Metrics().Command("C")
				assert.Equal(t, int64(1), m.CumulativeCount(metrics.Cancelled))
				assert.Equal(t, int64(len(tc.want)-1), m.CumulativeCount(metrics.Collapsed))
				e.assertIdle("C")
			})
		}
	}
}

// A command run inside another's run gets the outer run's context, whose deadline is on
// the runtime's clock (here a fake one, long before the wall clock): the inner command's
// failure is a FAILURE, not a caller that gave up because the wall clock passed it.
func TestANestedCommandsFailureIsNotTheCallerLeaving(t *testing.T) {
	e := newEnv(t)
	var inner *Command[string]
	_, err := New(e.setter("Outer"), func(ctx context.Context) (string, error) {
		inner = New(e.setter("Inner"), failing(errBoom)).WithFallback(fallbackValue("fb"))
		return inner.Execute(ctx)
	}).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), inner.ExecutionEvents())
}
