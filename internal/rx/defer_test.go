package rx

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errBoom = errors.New("boom")

func TestDeferRunsOncePerSubscription(t *testing.T) {
	var calls atomic.Int32
	obs := Defer(func(context.Context) (int, error) { return int(calls.Add(1)), nil })
	ctx := testCtx(t)
	assert.Equal(t, []any{1}, values(t, drain(t, obs.Observe(rxgo.WithContext(ctx)))))
	assert.Equal(t, []any{2}, values(t, drain(t, obs.Observe(rxgo.WithContext(ctx)))))
}

func TestDeferErrorAndError(t *testing.T) {
	for name, obs := range map[string]rxgo.Observable{
		"Defer": Defer(func(context.Context) (int, error) { return 0, errBoom }),
		"Error": Error(errBoom),
	} {
		t.Run(name, func(t *testing.T) {
			for range 2 { // resubscribable
				items := drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
				require.Len(t, items, 1)
				assert.ErrorIs(t, items[0].E, errBoom)
			}
		})
	}
}

func TestDeferTurnsPanicsIntoErrorItems(t *testing.T) {
	for name, tc := range map[string]struct {
		panicWith any
		is        error
	}{
		"error value": {panicWith: errBoom, is: errBoom},
		"other value": {panicWith: "oops"},
	} {
		t.Run(name, func(t *testing.T) {
			obs := Defer(func(context.Context) (int, error) { panic(tc.panicWith) })
			items := drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))
			require.Len(t, items, 1)
			require.Error(t, items[0].E)
			assert.Contains(t, items[0].E.Error(), "panicked")
			if tc.is != nil {
				assert.ErrorIs(t, items[0].E, tc.is)
			}
		})
	}
}

type ctxKey struct{}

func TestDeferPassesTheSubscriberContext(t *testing.T) {
	obs := Defer(func(ctx context.Context) (any, error) { return ctx.Value(ctxKey{}), nil })
	ctx := context.WithValue(testCtx(t), ctxKey{}, "v")
	assert.Equal(t, []any{"v"}, values(t, drain(t, obs.Observe(rxgo.WithContext(ctx)))))
}

func TestDeferStopsWhenTheSubscriberLeaves(t *testing.T) {
	started, returned := make(chan struct{}), make(chan error, 1)
	obs := Defer(func(ctx context.Context) (int, error) {
		close(started)
		<-ctx.Done()
		returned <- ctx.Err()
		return 1, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	ch := obs.Observe(rxgo.WithContext(ctx))
	<-started
	cancel()
	assert.Empty(t, drain(t, ch), "no value after the subscriber left")
	assert.ErrorIs(t, <-returned, context.Canceled)
}

func TestDeferComposesWithMapAndOnErrorResumeNext(t *testing.T) {
	double := func(_ context.Context, v any) (any, error) { return v.(int) * 2, nil }
	fallback := func(err error) rxgo.Observable {
		return Defer(func(context.Context) (int, error) { return -1, nil })
	}
	for _, tc := range []struct {
		name string
		src  rxgo.Observable
		want []any
	}{
		{"value", Defer(func(context.Context) (int, error) { return 21, nil }), []any{42}},
		{"error resumes", Error(errBoom), []any{-1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := tc.src.Map(double).OnErrorResumeNext(fallback)
			assert.Equal(t, tc.want, values(t, drain(t, obs.Observe(rxgo.WithContext(testCtx(t))))))
			v, err := obs.First().Get(rxgo.WithContext(testCtx(t)))
			require.NoError(t, err)
			assert.Equal(t, tc.want[0], v.V)
		})
	}
}
