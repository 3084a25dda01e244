package observable

import (
	"context"
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
	var term, unsub counter
	obs := DoOnUnsubscribe(DoOnTerminate(Defer(func(context.Context) (int, error) { return 1, nil }), term.inc), unsub.inc)
	f := ToFuture[int](testCtx(t), obs)
	v, err := f.Get(testCtx(t))
	require.NoError(t, err)
	assert.Equal(t, 1, v)
	eventually(t, func() bool { return term.get() == 1 }, "upstream saw no completion")
	assert.Zero(t, unsub.get())
}
