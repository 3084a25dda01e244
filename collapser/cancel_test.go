package collapser

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestCancelledCallerLeavesOpenBatch(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("LeaveOpen", GlobalScope), rec.batch())

	a := execAsync(t, context.Background(), col, 1, 1)
	ctx, cancel := context.WithCancel(context.Background())
	b := execAsync(t, ctx, col, 2, 2)
	c := execAsync(t, context.Background(), col, 3, 3)
	cancel()
	assert.ErrorIs(t, await(t, b).err, context.Canceled)
	assert.Equal(t, 2, queued(col.c))

	e.clk.Advance(10 * time.Millisecond)
	assert.Equal(t, outcome{v: "v1"}, await(t, a))
	assert.Equal(t, outcome{v: "v3"}, await(t, c))
	assert.Equal(t, [][]int{{1, 3}}, rec.allBatches())
}

func TestEveryCallerLeavingDropsTheBatch(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("LeaveAll", RequestScope), rec.batch())
	ctx, cancel := context.WithCancel(requestCtx(t))
	a := execAsync(t, ctx, col, 1, 1)
	b := execAsync(t, ctx, col, 2, 2)
	require.Equal(t, 1, e.timers())
	cancel()
	assert.ErrorIs(t, await(t, a).err, context.Canceled)
	assert.ErrorIs(t, await(t, b).err, context.Canceled)

	assert.Zero(t, e.timers(), "the timer of the dropped batch is stopped")
	assert.Zero(t, queued(col.c))
	e.clk.Advance(time.Second)
	assert.Empty(t, rec.allBatches())
	e.roll(time.Second)
	assert.Zero(t, e.rt.Metrics().Collapser("LeaveAll").CumulativeCount(metrics.BatchExecuted))
}

func TestCancelledCallerLeavesRunningBatch(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{block: make(chan struct{})}
	col := newCollapser(t, e.setter("LeaveRunning", GlobalScope, "maxRequestsInBatch", "2"), rec.batch())

	ctx, cancel := context.WithCancel(context.Background())
	a := execAsync(t, ctx, col, 1, 1)
	b := execAsync(t, context.Background(), col, 2, 0) // full: the batch runs
	require.Eventually(t, func() bool { return len(rec.sizes()) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, await(t, a).err, context.Canceled)

	close(rec.block)
	assert.Equal(t, outcome{v: "v2"}, await(t, b), "the batch goes on for the others")
}

func TestBatchCommandCancelledWhenEveryCallerLeft(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{block: make(chan struct{})}
	b := rec.batch()
	b.MapResponse = func(map[int]string, []*Request[int, string]) error {
		t.Error("the cancelled command returned a result")
		return nil
	}
	col := newCollapser(t, e.setter("CancelRunning", GlobalScope, "maxRequestsInBatch", "2"), b)

	ctx, cancel := context.WithCancel(context.Background())
	a := execAsync(t, ctx, col, 1, 1)
	c := execAsync(t, ctx, col, 2, 0)
	require.Eventually(t, func() bool { return len(rec.sizes()) == 1 }, 5*time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, await(t, a).err, context.Canceled)
	assert.ErrorIs(t, await(t, c).err, context.Canceled)
	require.Eventually(t, func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.cancelled == 1
	}, 5*time.Second, time.Millisecond, "the command's context is cancelled")
}

func TestSharedRequestSurvivesOneCallerLeaving(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	b := rec.batch()
	b.CacheKey = itoa
	col := newCollapser(t, e.setter("SharedLeave", RequestScope), b)
	rctx := requestCtx(t)

	ctx, cancel := context.WithCancel(rctx)
	a := execAsync(t, ctx, col, 1, 1)
	shared := make(chan outcome, 1)
	go func() {
		v, err := col.Execute(rctx, 1)
		shared <- outcome{v, err}
	}()
	require.Eventually(t, func() bool {
		col.c.mu.Lock()
		defer col.c.mu.Unlock()
		return col.c.perRequest[cacheOf(rctx)] != nil && col.c.perRequest[cacheOf(rctx)].reqs[0].waiters == 2
	}, 5*time.Second, time.Millisecond)
	cancel()
	assert.ErrorIs(t, await(t, a).err, context.Canceled)
	assert.Equal(t, 1, queued(col.c), "the other caller still waits for it")

	e.clk.Advance(10 * time.Millisecond)
	assert.Equal(t, outcome{v: "v1"}, await(t, shared))
	assert.Equal(t, [][]int{{1}}, rec.allBatches())
}

func TestAbandonedCachedRequestStartsAfresh(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	b := rec.batch()
	b.CacheKey = itoa
	col := newCollapser(t, e.setter("Afresh", RequestScope), b)
	rctx := requestCtx(t)

	ctx, cancel := context.WithCancel(rctx)
	a := execAsync(t, ctx, col, 1, 1)
	cancel()
	assert.ErrorIs(t, await(t, a).err, context.Canceled)

	fs := queueAll(rctx, col, 1)
	e.clk.Advance(10 * time.Millisecond)
	vals, errs := results(t, fs)
	assert.Equal(t, []string{"v1"}, vals)
	assert.Equal(t, []error{nil}, errs)
}

func TestFutureCancelLeavesBatch(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	col := newCollapser(t, e.setter("FutureCancel", GlobalScope), rec.batch())
	fs := queueAll(context.Background(), col, 1, 2)
	fs[0].Cancel()
	_, err := fs[0].Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	require.Eventually(t, func() bool { return queued(col.c) == 1 }, 5*time.Second, time.Millisecond)
	e.clk.Advance(10 * time.Millisecond)
	vals, _ := results(t, fs[1:])
	assert.Equal(t, []string{"v2"}, vals)
	assert.Equal(t, [][]int{{2}}, rec.allBatches())
}

func TestCacheHitOnRunningBatch(t *testing.T) {
	for _, firstLeavesEarly := range []bool{false, true} {
		t.Run(map[bool]string{false: "joined before the first left", true: "first left before"}[firstLeavesEarly], func(t *testing.T) {
			e := newEnv(t)
			rec := &recorder{block: make(chan struct{})}
			b := rec.batch()
			b.CacheKey = itoa
			col := newCollapser(t, e.setter("HitRunning", RequestScope, "maxRequestsInBatch", "1"), b)
			rctx := requestCtx(t)

			ctx, cancel := context.WithCancel(rctx)
			defer cancel()
			first := execAsync(t, ctx, col, 1, 0) // full at once: the batch runs and blocks
			require.Eventually(t, func() bool { return len(rec.sizes()) == 1 }, 5*time.Second, time.Millisecond)
			if firstLeavesEarly {
				cancel()
				assert.ErrorIs(t, await(t, first).err, context.Canceled)
			}
			second := make(chan outcome, 1)
			go func() {
				v, err := col.Execute(rctx, 1)
				second <- outcome{v, err}
			}()
			if firstLeavesEarly {
				// The first batch was cancelled: the duplicate starts a batch of its own.
				require.Eventually(t, func() bool { return len(rec.sizes()) == 2 }, 5*time.Second, time.Millisecond)
			} else {
				require.Eventually(t, func() bool {
					col.c.mu.Lock()
					defer col.c.mu.Unlock()
					r, _ := cacheOf(rctx).Cache().GetOrStart(col.c.cacheNS, "1", func() any { return nil })
					return r.(*Request[int, string]).waiters == 2
				}, 5*time.Second, time.Millisecond)
				cancel()
				assert.ErrorIs(t, await(t, first).err, context.Canceled)
			}
			close(rec.block)
			assert.Equal(t, outcome{v: "v1"}, await(t, second))
		})
	}
}
