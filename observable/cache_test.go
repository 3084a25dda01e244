package observable

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countedRange returns a source of 1..n (then err, if set) that counts its runs.
func countedRange(runs *atomic.Int32, n int, err error) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		runs.Add(1)
		for i := 1; i <= n; i++ {
			if !rxgo.Of(i).SendContext(ctx, next) {
				return
			}
		}
		if err != nil {
			rxgo.Error(err).SendContext(ctx, next)
		}
	}})
}

func TestCacheRunsOnceForConcurrentSubscribers(t *testing.T) {
	var runs atomic.Int32
	obs := Cache(countedRange(&runs, 3, nil))
	var wg sync.WaitGroup
	results := make([][]rxgo.Item, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = <-collectAsync(obs.Observe(rxgo.WithContext(testCtx(t))))
		}()
	}
	wg.Wait()
	for _, items := range results {
		assert.Equal(t, []any{1, 2, 3}, values(t, items))
	}
	assert.Equal(t, int32(1), runs.Load())
}

func TestCacheReplaysToLateSubscribers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		wantLen int
	}{
		{"completion", nil, 2},
		{"error is cached too", errBoom, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs atomic.Int32
			obs := Cache(countedRange(&runs, 2, tc.err))
			first := drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
			late := drain(t, obs.Map(func(_ context.Context, v any) (any, error) { return v, nil }).
				Observe(rxgo.WithContext(testCtx(t))))
			require.Len(t, first, tc.wantLen)
			assert.Equal(t, first, late)
			if tc.err != nil {
				assert.ErrorIs(t, late[len(late)-1].E, tc.err)
			}
			assert.Equal(t, int32(1), runs.Load())
		})
	}
}

func TestCacheOneSubscriberLeavingDoesNotCancelTheOthers(t *testing.T) {
	src := newGated()
	obs := Cache(src.observable(5))
	stayer := obs.Observe(rxgo.WithContext(testCtx(t)))
	await(t, src.started) // the stayer has joined
	leaverCtx, leave := context.WithCancel(context.Background())
	leaver := obs.Observe(rxgo.WithContext(leaverCtx))
	leave()
	assert.Empty(t, drain(t, leaver))
	close(src.release)
	assert.Equal(t, []any{5}, values(t, drain(t, stayer)))
	assert.Empty(t, src.cancelled, "the run was not cancelled")
}

func TestCacheRunKeepsTheFirstSubscribersValues(t *testing.T) {
	obs := Cache(Defer(func(ctx context.Context) (any, error) { return ctx.Value(ctxKey{}), nil }))
	ctx := context.WithValue(testCtx(t), ctxKey{}, "first")
	assert.Equal(t, []any{"first"}, values(t, drain(t, obs.Observe(rxgo.WithContext(ctx)))))
	assert.Equal(t, []any{"first"}, values(t, drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))))
}

func TestCacheCancelsTheRunWhenEverySubscriberLeft(t *testing.T) {
	var runs atomic.Int32
	src := newGated()
	obs := Cache(rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		runs.Add(1)
		for it := range src.observable(1).Observe(rxgo.WithContext(ctx)) {
			it.SendContext(ctx, next)
		}
	}}))
	ctx, cancel := context.WithCancel(context.Background())
	out := obs.Observe(rxgo.WithContext(ctx))
	cancel()
	assert.Empty(t, drain(t, out))
	assert.ErrorIs(t, await(t, src.cancelled), context.Canceled, "run cancelled, no goroutine left")

	late := drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
	require.Len(t, late, 1)
	assert.ErrorIs(t, late[0].E, context.Canceled)
	assert.Equal(t, int32(1), runs.Load(), "never run twice")
}
