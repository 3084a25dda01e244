package rx

import (
	"context"
	"sync"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplayToEarlyAndLateSubscribers(t *testing.T) {
	var r Replay
	obs := r.Observable()
	early := collectAsync(obs.Observe(rxgo.WithContext(testCtx(t))))
	r.Add(rxgo.Of(1))
	r.Add(rxgo.Of(2))
	r.Add(rxgo.Error(errBoom))
	r.Add(rxgo.Of(3)) // after the terminal: dropped
	late := drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
	for _, items := range [][]rxgo.Item{await(t, early), late} {
		require.Len(t, items, 3)
		assert.Equal(t, []any{1, 2}, values(t, items[:2]))
		assert.ErrorIs(t, items[2].E, errBoom)
	}
	items, done := r.Items()
	assert.Len(t, items, 3)
	assert.True(t, done)
}

func TestReplayFinishCompletesEverySubscriber(t *testing.T) {
	var r Replay
	obs := r.Observable()
	var wg sync.WaitGroup
	got := make([][]rxgo.Item, 8)
	for i := range got {
		wg.Go(func() { got[i] = drain(t, obs.Observe(rxgo.WithContext(testCtx(t)))) })
	}
	for i := range 5 {
		r.Add(rxgo.Of(i))
	}
	r.Finish()
	wg.Wait()
	for _, items := range got {
		assert.Equal(t, []any{0, 1, 2, 3, 4}, values(t, items))
	}
}

func TestReplaySubscriberLeavesEarly(t *testing.T) {
	var r Replay
	ctx, cancel := context.WithCancel(context.Background())
	ch := r.Observable().Observe(rxgo.WithContext(ctx))
	cancel()
	for range ch { // the producer ends with the subscription, though the replay never finishes
	}
}
