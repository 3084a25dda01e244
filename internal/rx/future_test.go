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

func TestFutureOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		obs     rxgo.Observable
		want    int
		wantErr error
		errText string
	}{
		{name: "value", obs: Defer(func(context.Context) (int, error) { return 4, nil }), want: 4},
		{name: "first value wins", obs: rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
			rxgo.Of(1).SendContext(ctx, next)
			rxgo.Of(2).SendContext(ctx, next)
		}}), want: 1},
		{name: "error", obs: Error(errBoom), wantErr: errBoom},
		{name: "empty", obs: rxgo.Empty(), wantErr: ErrEmpty},
		{name: "wrong type", obs: Defer(func(context.Context) (string, error) { return "x", nil }),
			errText: "future of int got a value of type string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ToFuture[int](testCtx(t), tc.obs)
			v, err := f.Get(testCtx(t))
			switch {
			case tc.wantErr != nil:
				assert.ErrorIs(t, err, tc.wantErr)
			case tc.errText != "":
				assert.ErrorContains(t, err, tc.errText)
			default:
				require.NoError(t, err)
				assert.Equal(t, tc.want, v)
			}
			select {
			case <-f.Done():
			default:
				t.Fatal("Done not closed after Get returned the outcome")
			}
		})
	}
}

func TestFutureNilIsTheZeroValue(t *testing.T) {
	v, err := ToFuture[*int](testCtx(t), Defer(func(context.Context) (*int, error) { return nil, nil })).Get(testCtx(t))
	require.NoError(t, err)
	assert.Nil(t, v)
}

func TestFutureCancel(t *testing.T) {
	src := newGated()
	f := ToFuture[int](context.Background(), src.observable(1))
	f.Cancel()
	<-f.Done()
	_, err := f.Get(testCtx(t))
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, await(t, src.cancelled), context.Canceled, "subscription cancelled")
}

func TestFutureParentContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	f := ToFuture[int](ctx, newGated().observable(1))
	cancel(errBoom)
	_, err := f.Get(testCtx(t))
	assert.ErrorIs(t, err, errBoom, "the cause is reported")
}

func TestFutureGetGivesUpWithItsOwnContext(t *testing.T) {
	src := newGated()
	f := ToFuture[int](testCtx(t), src.observable(9))
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := f.Get(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	close(src.release) // the subscription kept running
	v, err := f.Get(testCtx(t))
	require.NoError(t, err)
	assert.Equal(t, 9, v)
}

func TestFutureLetsUpstreamComplete(t *testing.T) {
	completed := make(chan bool, 1)
	obs := rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		rxgo.Of(1).SendContext(ctx, next)
		completed <- ctx.Err() == nil // still subscribed after the first value
	}})
	v, err := ToFuture[int](testCtx(t), obs).Get(testCtx(t))
	require.NoError(t, err)
	assert.Equal(t, 1, v)
	assert.True(t, await(t, completed), "the subscription went on to the completion")
}

// canceler counts Cancel calls.
type canceler struct{ n atomic.Int32 }

func (c *canceler) Cancel() { c.n.Add(1) }

func TestFutureCompletedByItsProducer(t *testing.T) {
	c := &canceler{}
	f := &Future[string]{}
	f.SetCanceler(c)
	assert.False(t, f.Ready())
	done := f.Done()
	f.Cancel()
	assert.EqualValues(t, 1, c.n.Load(), "a pending future's Cancel reaches the producer")

	assert.True(t, f.Complete("v", nil))
	assert.False(t, f.Complete("w", errBoom), "only the first completion counts")
	<-done
	assert.True(t, f.Ready())
	v, err := f.Get(testCtx(t))
	require.NoError(t, err)
	assert.Equal(t, "v", v)
	f.Cancel()
	assert.EqualValues(t, 1, c.n.Load(), "a done future's Cancel changes nothing")
}

func TestFutureCompletedBeforeAnyoneWaitsMakesNoChannel(t *testing.T) {
	var f Future[int]
	f.Complete(3, nil)
	assert.Zero(t, testing.AllocsPerRun(100, func() {
		<-f.Done()
		_, _ = f.Get(context.Background())
	}))
}

// gated is a source that emits v once release is closed, or records its cancellation.
type gated struct {
	release   chan struct{}
	cancelled chan error
}

func newGated() *gated {
	return &gated{release: make(chan struct{}), cancelled: make(chan error, 1)}
}

func (g *gated) observable(v int) rxgo.Observable {
	return Defer(func(ctx context.Context) (int, error) {
		select {
		case <-g.release:
			return v, nil
		case <-ctx.Done():
			g.cancelled <- ctx.Err()
			return 0, ctx.Err()
		}
	})
}
