package rx

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endless is a source that honours its subscription's context, emitting 0, 1, 2, ... as
// fast as they are taken; ended is closed when its producer returned.
func endless(ended chan<- struct{}) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		defer close(ended)
		for i := 0; rxgo.Of(i).SendContext(ctx, next); i++ {
		}
	}})
}

// An operator chain on a Stoppable that stops reading ends the source's subscription and
// calls stop before its subscriber's channel closes, with a subscription context that
// never ends; rxgo alone leaves the source blocked on its next send (goleak would see it).
func TestStoppableEndsTheSourceWhenOperatorsStop(t *testing.T) {
	for name, op := range map[string]func(rxgo.Observable) rxgo.Iterable{
		"Take(1)":      func(o rxgo.Observable) rxgo.Iterable { return o.Take(1) },
		"Map.Take(2)":  func(o rxgo.Observable) rxgo.Iterable { return o.Map(id).Take(2) },
		"First":        func(o rxgo.Observable) rxgo.Iterable { return o.First() },
		"TakeUntil":    func(o rxgo.Observable) rxgo.Iterable { return o.TakeUntil(func(any) bool { return true }) },
		"ElementAt(3)": func(o rxgo.Observable) rxgo.Iterable { return o.ElementAt(3) },
		"Contains":     func(o rxgo.Observable) rxgo.Iterable { return o.Contains(func(v any) bool { return v == 2 }) },
		"First.Map":    func(o rxgo.Observable) rxgo.Iterable { return o.First().Map(id) },
	} {
		t.Run(name, func(t *testing.T) {
			ended := make(chan struct{})
			var stopped atomic.Int32
			obs := Stoppable(endless(ended), func() {
				select {
				case <-ended:
				case <-time.After(waitLimit):
					t.Error("stop came before the source's subscription ended")
				}
				stopped.Add(1)
			})
			items := drain(t, op(obs).Observe(rxgo.WithContext(context.Background())))
			require.NotEmpty(t, items)
			assert.EqualValues(t, 1, stopped.Load(), "stop was called before the channel closed")
		})
	}
}

func id(_ context.Context, v any) (any, error) { return v, nil }

// Take(n) completes right after its n-th item, even when the source goes quiet (rxgo's
// waits for one item more).
func TestStoppableTakeCompletesAtOnce(t *testing.T) {
	quiet := rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		if rxgo.Of(1).SendContext(ctx, next) {
			<-ctx.Done()
		}
	}})
	items := drain(t, Stoppable(quiet, nil).Take(1).Observe(rxgo.WithContext(testCtx(t))))
	require.Len(t, items, 1)
	assert.Equal(t, 1, items[0].V)
}

// A direct subscription is the source's own, and the terminal subscriptions of an operator
// chain read through the forwarder.
func TestStoppableDirectAndTerminalSubscriptions(t *testing.T) {
	items := drain(t, Stoppable(rxgo.Just(1, 2, 3)(), nil).Observe())
	assert.Len(t, items, 3)

	ended := make(chan struct{})
	var got []any
	<-Stoppable(endless(ended), nil).Take(2).DoOnNext(func(v any) { got = append(got, v) })
	assert.Equal(t, []any{0, 1}, got)
	<-ended
	s, err := Stoppable(rxgo.Just(1, 2, 3)(), nil).Map(id).ToSlice(0)
	require.NoError(t, err)
	assert.Equal(t, []any{1, 2, 3}, s)
}
