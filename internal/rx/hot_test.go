package rx

import (
	"context"
	"sync"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFutureObservableReplaysToEarlyAndLateSubscribers(t *testing.T) {
	var f Future[int]
	obs := f.Observable()
	require.True(t, obs == f.Observable(), "one observable per future")
	early := collectAsync(obs.Observe(rxgo.WithContext(testCtx(t))))
	mapped := collectAsync(obs.Map(func(_ context.Context, v any) (any, error) { return v.(int) * 2, nil }).
		Observe(rxgo.WithContext(testCtx(t))))
	f.Complete(3, nil)
	assert.Equal(t, []any{3}, values(t, await(t, early)))
	assert.Equal(t, []any{6}, values(t, await(t, mapped)))
	for range 2 {
		assert.Equal(t, []any{3}, values(t, drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))))
	}
	first, err := obs.First(rxgo.WithContext(testCtx(t))).Get()
	require.NoError(t, err)
	assert.Equal(t, 3, first.V)
	all, err := obs.ToSlice(0, rxgo.WithContext(testCtx(t)))
	require.NoError(t, err)
	assert.Equal(t, []any{3}, all)
}

func TestFutureObservableOfAnError(t *testing.T) {
	var f Future[int]
	f.Complete(0, errBoom)
	items := drain(t, f.Observable().Observe())
	require.Len(t, items, 1)
	assert.ErrorIs(t, items[0].E, errBoom)
	var got error
	<-f.Observable().DoOnError(func(err error) { got = err }, rxgo.WithContext(testCtx(t)))
	assert.ErrorIs(t, got, errBoom)
}

func TestFutureObservableSubscriberLeavesBeforeTheOutcome(t *testing.T) {
	var f Future[int]
	ctx, cancel := context.WithCancel(context.Background())
	ch := f.Observable().Observe(rxgo.WithContext(ctx))
	cancel()
	assert.Empty(t, drain(t, ch), "the producer ends with the subscription, though the future never completes")
}

// Done and Complete meet without a lock: every channel Done handed out is closed.
func TestFutureDoneRacesComplete(t *testing.T) {
	for range 200 {
		var f Future[int]
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				<-f.Done()
				v, err := f.Get(context.Background())
				assert.NoError(t, err)
				assert.Equal(t, 7, v)
			})
		}
		wg.Go(func() { f.Complete(7, nil) })
		wg.Wait()
	}
}

func TestEmitHandsTheItemToAWaitingSubscriber(t *testing.T) {
	next := make(chan rxgo.Item)
	got := make(chan rxgo.Item, 1)
	go func() { got <- <-next }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for !Emit(ctx, next, 5, nil) { // a subscriber waiting gets the item though ctx ended
	}
	assert.Equal(t, 5, await(t, got).V)
	assert.False(t, Emit(ctx, next, 6, nil), "nobody waits and ctx ended")
}
