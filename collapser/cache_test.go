package collapser

import (
	"context"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestDuplicateArguments(t *testing.T) {
	tests := []struct {
		name      string
		cacheKey  bool
		cacheOn   string
		wantBatch []int
		wantHits  int64
	}{
		{"cache on: duplicates share one request", true, "true", []int{1, 2}, 2},
		{"cache off: every duplicate is sent", true, "false", []int{1, 1, 2, 1}, 0},
		{"no cache key: every duplicate is sent", false, "true", []int{1, 1, 2, 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			rec := &recorder{}
			b := rec.batch()
			if tt.cacheKey {
				b.CacheKey = itoa
			}
			col := newCollapser(t, e.setter("Dup", GlobalScope, "requestCache.enabled", tt.cacheOn), b)

			fs := queueAll(context.Background(), col, 1, 1, 2, 1)
			e.clk.Advance(10 * time.Millisecond)
			vals, errs := results(t, fs)
			assert.Equal(t, []string{"v1", "v1", "v2", "v1"}, vals)
			assert.Equal(t, []error{nil, nil, nil, nil}, errs)
			assert.Equal(t, [][]int{tt.wantBatch}, rec.allBatches())

			e.roll(time.Second)
			cm := e.rt.Metrics().Collapser("Dup")
			assert.Equal(t, tt.wantHits, cm.CumulativeCount(metrics.CollapserResponseFromCache))
			assert.Equal(t, int64(len(tt.wantBatch)), cm.CumulativeCount(metrics.AddedToBatch))
		})
	}
}

func TestRequestCacheSpansBatchesOfOneRequest(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	b := rec.batch()
	b.CacheKey = itoa
	col := newCollapser(t, e.setter("Cached", RequestScope), b)
	ctx := requestCtx(t)

	fs := queueAll(ctx, col, 7)
	e.clk.Advance(10 * time.Millisecond)
	results(t, fs)

	// A later duplicate in the same request is answered at once, without a batch.
	v, err := col.Execute(ctx, 7)
	require.NoError(t, err)
	assert.Equal(t, "v7", v)
	assert.Equal(t, [][]int{{7}}, rec.allBatches())
	assert.Zero(t, e.timers())

	// Another request has its own cache.
	other := requestCtx(t)
	fs = queueAll(other, col, 7)
	e.clk.Advance(10 * time.Millisecond)
	results(t, fs)
	assert.Equal(t, [][]int{{7}, {7}}, rec.allBatches())
}

func TestRequestCacheReplaysFailures(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{respond: func([]int) map[int]string { return nil }}
	b := rec.batch()
	b.CacheKey = itoa
	col := newCollapser(t, e.setter("CachedFail", RequestScope), b)
	ctx := requestCtx(t)

	fs := queueAll(ctx, col, 1)
	e.clk.Advance(10 * time.Millisecond)
	_, errs := results(t, fs)
	require.ErrorIs(t, errs[0], ErrNoResponse)
	_, err := col.Execute(ctx, 1)
	assert.ErrorIs(t, err, ErrNoResponse)
	assert.Len(t, rec.allBatches(), 1)
}

func TestClosedRequestContext(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("Closed", RequestScope), rec.batch())
	ctx, rc := cache.NewRequestContext(context.Background())
	fs := queueAll(ctx, col, 1)
	rc.Close()

	// The open batch still answers; new requests need a live request context.
	_, err := col.Execute(ctx, 2)
	assert.ErrorIs(t, err, ErrNoRequestContext)
	e.clk.Advance(10 * time.Millisecond)
	vals, _ := results(t, fs)
	assert.Equal(t, []string{"v1"}, vals)
}

// unluckyKey is a CacheKey that panics for the argument 13.
func unluckyKey(a int) string {
	if a == 13 {
		panic("no key for 13")
	}
	return itoa(a)
}

// firstErr subscribes to obs with ctx (a cold collapser observable submits with it) and
// returns the error of its first item.
func firstErr(ctx context.Context, obs rxgo.Observable) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for it := range obs.Observe(rxgo.WithContext(ctx)) {
		return it.E
	}
	return nil
}

// TestPanickingCacheKeyFailsOnlyItsRequest: a panic in CacheKey reaches the caller as an
// error wrapping ErrBadBatch, through every door of both collapsers and in both scopes;
// the request joins no batch, and the batch open beside it is answered.
func TestPanickingCacheKeyFailsOnlyItsRequest(t *testing.T) {
	type door func(ctx context.Context, arg int) error
	plain := map[string]func(*Collapser[int, string, map[int]string]) door{
		"Execute": func(c *Collapser[int, string, map[int]string]) door {
			return func(ctx context.Context, a int) error { _, err := c.Execute(ctx, a); return err }
		},
		"Queue": func(c *Collapser[int, string, map[int]string]) door {
			return func(ctx context.Context, a int) error { _, err := c.Queue(ctx, a).Get(ctx); return err }
		},
		"Observe": func(c *Collapser[int, string, map[int]string]) door {
			return func(ctx context.Context, a int) error { _, err := first(t, c.Observe(ctx, a)); return err }
		},
		"ToObservable": func(c *Collapser[int, string, map[int]string]) door {
			return func(ctx context.Context, a int) error {
				return firstErr(ctx, c.ToObservable(a))
			}
		},
	}
	stream := map[string]func(*StreamCollapser[int, string, item, int]) door{
		"Execute": func(c *StreamCollapser[int, string, item, int]) door {
			return func(ctx context.Context, a int) error { _, err := c.Execute(ctx, a); return err }
		},
		"Queue": func(c *StreamCollapser[int, string, item, int]) door {
			return func(ctx context.Context, a int) error { _, err := c.Queue(ctx, a).Get(ctx); return err }
		},
		"Observe": func(c *StreamCollapser[int, string, item, int]) door {
			return func(ctx context.Context, a int) error { _, err := first(t, c.Observe(ctx, a)); return err }
		},
		"ToObservable": func(c *StreamCollapser[int, string, item, int]) door {
			return func(ctx context.Context, a int) error {
				return firstErr(ctx, c.ToObservable(a))
			}
		},
	}
	check := func(t *testing.T, err error, queuedNow int) {
		t.Helper()
		require.ErrorIs(t, err, ErrBadBatch)
		assert.ErrorContains(t, err, "CacheKey")
		assert.ErrorContains(t, err, "no key for 13")
		assert.Equal(t, 1, queuedNow, "the request joined no batch")
	}
	for _, scope := range []Scope{RequestScope, GlobalScope} {
		for name, mk := range plain {
			t.Run("Collapser/"+scope.String()+"/"+name, func(t *testing.T) {
				e := newEnv(t)
				rec := &recorder{}
				b := rec.batch()
				b.CacheKey = unluckyKey
				col := newCollapser(t, e.setter("Unlucky", scope), b)
				ctx := requestCtx(t)
				fs := queueAll(ctx, col, 1)
				check(t, mk(col)(ctx, 13), queued(col.c))
				e.clk.Advance(10 * time.Millisecond)
				vals, errs := results(t, fs)
				assert.Equal(t, []string{"v1"}, vals)
				assert.Equal(t, []error{nil}, errs)
				assert.Equal(t, [][]int{{1}}, rec.allBatches())
			})
		}
		for name, mk := range stream {
			t.Run("StreamCollapser/"+scope.String()+"/"+name, func(t *testing.T) {
				e := newEnv(t)
				b := streamBatch(manyPerArg)
				b.CacheKey = unluckyKey
				sc, err := NewStream(e.setter("UnluckyStream", scope), b)
				require.NoError(t, err)
				ctx := requestCtx(t)
				fs := streamFutures{sc.Queue(ctx, 1)}
				check(t, mk(sc)(ctx, 13), queued(sc.c))
				e.clk.Advance(10 * time.Millisecond)
				vals, errs := fs.get(t)
				assert.Equal(t, [][]string{{"1.0"}}, vals)
				assert.Equal(t, []error{nil}, errs)
			})
		}
	}
}
