package observable

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
)

// gated is a source that emits v once release is closed, or records its cancellation.
type gated struct {
	started   chan struct{} // gets a value each time a subscription starts
	release   chan struct{}
	cancelled chan error
}

func newGated() *gated {
	return &gated{started: make(chan struct{}, 16), release: make(chan struct{}), cancelled: make(chan error, 1)}
}

func (g *gated) observable(v int) rxgo.Observable {
	return Defer(func(ctx context.Context) (int, error) {
		g.started <- struct{}{}
		select {
		case <-g.release:
			return v, nil
		case <-ctx.Done():
			g.cancelled <- ctx.Err()
			return 0, ctx.Err()
		}
	})
}

func TestTimeoutPassesAFastSource(t *testing.T) {
	clk := clock.NewFake(epoch)
	obs := Timeout(Defer(func(context.Context) (int, error) { return 7, nil }), time.Second, clk)
	assert.Equal(t, []any{7}, values(t, drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))))
	assert.Zero(t, clk.Pending(), "timer stopped on completion")
}

func TestTimeoutPassesSourceErrors(t *testing.T) {
	obs := Timeout(Error(errBoom), time.Second, clock.NewFake(epoch))
	items := drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
	require.Len(t, items, 1)
	assert.ErrorIs(t, items[0].E, errBoom)
}

func TestTimeoutEmitsErrTimeoutAndCancelsTheSource(t *testing.T) {
	clk := clock.NewFake(epoch)
	src := newGated()
	out := Timeout(src.observable(1), time.Second, clk).Observe(rxgo.WithContext(testCtx(t)))
	clk.BlockUntil(1)
	clk.Advance(time.Second)

	items := drain(t, out)
	require.Len(t, items, 1)
	assert.ErrorIs(t, items[0].E, ErrTimeout)
	assert.ErrorIs(t, <-src.cancelled, context.Canceled, "source unsubscribed on timeout")
}

func TestTimeoutIsSeenByOnErrorResumeNext(t *testing.T) {
	clk := clock.NewFake(epoch)
	var seen error
	obs := Timeout(newGated().observable(1), time.Second, clk).
		OnErrorResumeNext(func(err error) rxgo.Observable {
			seen = err
			return Defer(func(context.Context) (string, error) { return "fallback", nil })
		})
	out := obs.Observe(rxgo.WithContext(testCtx(t)))
	clk.BlockUntil(1)
	clk.Advance(time.Second)
	assert.Equal(t, []any{"fallback"}, values(t, drain(t, out)))
	assert.ErrorIs(t, seen, ErrTimeout)
}

func TestTimeoutClockStartsAtSubscription(t *testing.T) {
	clk := clock.NewFake(epoch)
	src := newGated()
	obs := Timeout(src.observable(3), time.Second, clk)
	clk.Advance(10 * time.Second) // before the subscription: must not count

	out := obs.Observe(rxgo.WithContext(testCtx(t)))
	clk.BlockUntil(1)
	clk.Advance(999 * time.Millisecond)
	close(src.release)
	assert.Equal(t, []any{3}, values(t, drain(t, out)))
}

func TestTimeoutSubscriberLeavingIsNotATimeout(t *testing.T) {
	clk := clock.NewFake(epoch)
	src := newGated()
	ctx, cancel := context.WithCancel(context.Background())
	out := Timeout(src.observable(1), time.Second, clk).Observe(rxgo.WithContext(ctx))
	clk.BlockUntil(1)
	cancel()
	assert.Empty(t, drain(t, out))
	assert.ErrorIs(t, <-src.cancelled, context.Canceled)
	assert.Zero(t, clk.Pending(), "timer stopped")
}

// TestTimeoutRaceHasExactlyOneWinner fires the timer while the source completes: the
// output is either the value and a completion or it ends with one ErrTimeout, never both
// terminals and never a second error.
func TestTimeoutRaceHasExactlyOneWinner(t *testing.T) {
	outcomes := map[string]int{}
	for i := range 300 {
		clk := clock.NewFake(epoch)
		src := newGated()
		out := Timeout(src.observable(1), time.Second, clk).Observe(rxgo.WithContext(testCtx(t)))
		got := collectAsync(out)
		clk.BlockUntil(1)
		close(src.release)
		for range i % 20 { // vary the head start of the completion
			runtime.Gosched()
		}
		clk.Advance(time.Second)

		items := await(t, got)
		require.NotEmpty(t, items)
		for _, it := range items[:len(items)-1] {
			require.False(t, it.Error(), "only the last item may be an error: %v", items)
		}
		last := items[len(items)-1]
		switch {
		case last.Error():
			require.ErrorIs(t, last.E, ErrTimeout)
			outcomes["timeout"]++
		default:
			require.Equal(t, []any{1}, values(t, items))
			outcomes["completed"]++
		}
	}
	t.Logf("outcomes: %v", outcomes)
}

func TestTimeoutOnTheSystemClock(t *testing.T) {
	items := drain(t, Timeout(newGated().observable(1), 5*time.Millisecond, clock.System()).
		Observe(rxgo.WithContext(testCtx(t))))
	require.Len(t, items, 1)
	assert.ErrorIs(t, items[0].E, ErrTimeout)
}
