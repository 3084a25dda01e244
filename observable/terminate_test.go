package observable

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counter counts callback calls.
type counter struct{ n atomic.Int32 }

func (c *counter) inc()       { c.n.Add(1) }
func (c *counter) get() int32 { return c.n.Load() }

func TestDoOnTerminateAndDoOnUnsubscribe(t *testing.T) {
	value := Defer(func(context.Context) (int, error) { return 1, nil })
	for _, tc := range []struct {
		name               string
		src                func(*gated) rxgo.Observable
		leave              bool // the subscriber cancels while src is still running
		wantTerm, wantUnsu int32
		wantItems          int
	}{
		{name: "completion", src: func(*gated) rxgo.Observable { return value }, wantTerm: 1, wantItems: 1},
		{name: "error item", src: func(*gated) rxgo.Observable { return Error(errBoom) }, wantTerm: 1, wantItems: 1},
		{name: "empty", src: func(*gated) rxgo.Observable { return rxgo.Empty() }, wantTerm: 1},
		{name: "unsubscribe", src: func(g *gated) rxgo.Observable { return g.observable(1) }, leave: true, wantUnsu: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var term, unsub counter
			g := newGated()
			obs := DoOnUnsubscribe(DoOnTerminate(tc.src(g), term.inc), unsub.inc)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			out := obs.Observe(rxgo.WithContext(ctx))
			if tc.leave {
				cancel()
				assert.ErrorIs(t, await(t, g.cancelled), context.Canceled, "source cancelled")
			}
			items := drain(t, out)
			assert.Len(t, items, tc.wantItems)
			if tc.wantTerm > 0 {
				assert.Equal(t, tc.wantTerm, term.get(), "called before the output terminated")
			}
			assert.Equal(t, tc.wantUnsu, unsub.get())
			assert.Equal(t, tc.wantTerm, term.get())
		})
	}
}

func TestDoOnTerminateRunsPerSubscription(t *testing.T) {
	var term counter
	obs := DoOnTerminate(Defer(func(context.Context) (int, error) { return 1, nil }), term.inc)
	for range 3 {
		drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
	}
	assert.Equal(t, int32(3), term.get())
}

func TestDoOnUnsubscribeWhileAnItemWaits(t *testing.T) {
	var unsub counter
	obs := DoOnUnsubscribe(Defer(func(context.Context) (int, error) { return 1, nil }), unsub.inc)
	ctx, cancel := context.WithCancel(context.Background())
	out := obs.Observe(rxgo.WithContext(ctx))
	cancel() // the value is ready but nobody reads it before the subscriber leaves
	assert.Empty(t, drain(t, out))
	assert.Equal(t, int32(1), unsub.get())
}

// TestTerminateOrUnsubscribeExactlyOnceUnderRaces cancels subscriptions while the source
// completes: every subscription reports exactly one of the two ends.
func TestTerminateOrUnsubscribeExactlyOnceUnderRaces(t *testing.T) {
	src := Defer(func(context.Context) (int, error) { return 1, nil })
	var totals [2]int
	for range 500 {
		var term, unsub counter
		ctx, cancel := context.WithCancel(context.Background())
		out := doOnEnd(src, term.inc, unsub.inc).Observe(rxgo.WithContext(ctx))
		go cancel()
		drain(t, out) // the output closes only after the producer decided
		require.Equal(t, int32(1), term.get()+unsub.get(), "exactly one end per subscription")
		totals[0] += int(term.get())
		totals[1] += int(unsub.get())
	}
	t.Logf("terminated %d, unsubscribed %d", totals[0], totals[1])
}
