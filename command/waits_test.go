package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// A hedge delay of "6.6ms" (a measured p95) is 6.6 ms, not refused nor rounded: no
// hedge 1 us before it, the hedge at it.
func TestHedgeDelayKeepsMicroseconds(t *testing.T) {
	e := newEnv(t)
	c := newCalls()
	cmd := New(e.hedgeSetter("Micro", "hedge.delayInMilliseconds", "6.6ms"), func(ctx context.Context) (string, error) {
		if c.next(ctx) == 1 {
			<-ctx.Done()
			return "", ctx.Err()
		}
		return "hedge", nil
	})
	res := executeAsync(context.Background(), cmd)
	select {
	case <-c.ctxs:
	case err := <-res:
		require.FailNow(t, "refused", "%v", err)
	}
	e.clk.BlockUntil(1)
	armed := e.clk.Pending()
	e.clk.Advance(6599 * time.Microsecond)
	assert.Equal(t, armed, e.clk.Pending(), "the hedge's timer has not fired")
	assert.EqualValues(t, 1, c.n.Load())
	e.clk.Advance(time.Microsecond)
	<-c.ctxs
	require.NoError(t, <-res)
	e.waitCounts("Micro", []int64{1, 1, 1}, metrics.Hedge, metrics.Success, metrics.Cancelled)
	e.assertIdle("Micro")
}
