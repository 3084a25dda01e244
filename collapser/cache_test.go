package collapser

import (
	"context"
	"testing"
	"time"

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
