package command

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

var errCut = errors.New("connection reset")

// numbered returns a source of the sequence numbers from..total-1 that is cut (errCut)
// after cutAfter items when cutAfter is below what it has left; opened counts the opens.
func numbered(from, total, cutAfter int, opened *atomic.Int32) rxgo.Observable {
	opened.Add(1)
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		for i := from; i < total; i++ {
			if i-from == cutAfter {
				rxgo.Error(errCut).SendContext(ctx, next)
				return
			}
			if !rxgo.Of(i).SendContext(ctx, next) {
				return
			}
		}
	}})
}

// 1,000 streams cut at random points, each connection again at a random point: with
// resume the subscriber gets every sequence number once, in order.
func TestStreamResumeLosesAndDuplicatesNothing(t *testing.T) {
	const streams, total = 1000, 40
	_, s, base := realStreams(t)
	var wg sync.WaitGroup
	var resumes atomic.Int64
	for range streams {
		wg.Go(func() {
			var opened atomic.Int32
			cut := func() int { return rand.IntN(total) } // may be past the end: not cut
			st := NewStream[int](s, func(context.Context) rxgo.Observable {
				return numbered(0, total, max(cut(), 1), &opened) // the first connection delivers an item
			}).WithResume(10*total, func(_ context.Context, last int, err error) rxgo.Observable {
				assert.ErrorIs(t, err, errCut)
				return numbered(last+1, total, cut(), &opened)
			})
			var got []int
			for v, err := range st.Values(context.Background()) {
				require.NoError(t, err)
				got = append(got, v)
			}
			want := make([]int, total)
			for i := range want {
				want[i] = i
			}
			assert.Equal(t, want, got, "0 lost, 0 duplicated")
			assert.Equal(t, int(opened.Load())-1, st.Resumes())
			assert.Equal(t, st.Resumes() > 0, st.has(metrics.StreamResumed))
			assert.True(t, st.has(metrics.Success))
			resumes.Add(int64(st.Resumes()))
		})
	}
	wg.Wait()
	t.Logf("%d streams of %d items: %d resumes", streams, total, resumes.Load())
	assert.Positive(t, resumes.Load())
	backToBaseline(t, base)
}

// Without a resume function a stream that delivered an item is never opened again.
func TestStreamWithoutResumeNeverRetriesAfterAnItem(t *testing.T) {
	const streams, total = 1000, 40
	_, s, base := realStreams(t)
	var wg sync.WaitGroup
	for range streams {
		wg.Go(func() {
			var opened atomic.Int32
			cutAfter := 1 + rand.IntN(total-1)
			st := NewStream[int](s, func(context.Context) rxgo.Observable {
				return numbered(0, total, cutAfter, &opened)
			})
			var got []int
			var last error
			for v, err := range st.Values(context.Background()) {
				if err != nil {
					last = err
					break
				}
				got = append(got, v)
			}
			assert.ErrorIs(t, last, errCut)
			assert.Len(t, got, cutAfter)
			assert.Equal(t, int32(1), opened.Load(), "0 retries after the first delivered item")
			assert.Equal(t, 0, st.Resumes())
			assert.True(t, st.has(metrics.StreamMidFailure))
		})
	}
	wg.Wait()
	backToBaseline(t, base)
}

// Resumes are bounded: past max the cut ends the stream; and a stream that delivered no
// item is not resumed (that is a retry's business).
func TestStreamResumeBounds(t *testing.T) {
	e := newEnv(t)
	var opened atomic.Int32
	st := NewStream[int](e.streamSetter("S"), func(context.Context) rxgo.Observable {
		return numbered(0, 100, 2, &opened)
	}).WithResume(2, func(_ context.Context, last int, _ error) rxgo.Observable {
		return numbered(last+1, 100, 2, &opened)
	})
	values, errs := items(t, st.ToObservable())
	assert.Equal(t, []any{0, 1, 2, 3, 4, 5}, values)
	require.Len(t, errs, 1)
	runtimeErr(t, errs[0], CommandException)
	assert.ErrorIs(t, errs[0], errCut)
	assert.Equal(t, 2, st.Resumes())
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit,
		metrics.Failure, metrics.FallbackMissing, metrics.StreamMidFailure, metrics.StreamResumed, metrics.StreamResumed),
		st.ExecutionEvents(), "one STREAM_RESUMED per resume")

	opened.Store(0)
	st = NewStream[int](e.streamSetter("S"), func(context.Context) rxgo.Observable {
		return numbered(0, 100, 0, &opened)
	}).WithResume(2, func(context.Context, int, error) rxgo.Observable {
		t.Error("resumed a stream that delivered nothing")
		return nil
	})
	_, errs = items(t, st.ToObservable())
	require.Len(t, errs, 1)
	assert.Equal(t, int32(1), opened.Load())
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), st.ExecutionEvents())
	e.assertIdle("S")
}

// An idle stream is resumed too: the resumed connection has its own establishment and
// the idle clock starts again.
func TestStreamResumeAfterIdleTimeout(t *testing.T) {
	e := newEnv(t)
	first := make(chan any)
	second := make(chan any)
	st := NewStream[any](e.streamSetter("S", "stream.idleTimeoutInMilliseconds", "100"), fed(first, false)).
		WithResume(1, func(ctx context.Context, last any, err error) rxgo.Observable {
			assert.Equal(t, 1, last)
			assert.ErrorIs(t, err, ErrStreamIdleTimeout)
			return fed(second, false)(ctx)
		})
	out := st.ToObservable().Observe()
	first <- 1
	assert.Equal(t, 1, (<-out).V)
	watching(t, st)
	e.clk.Advance(100 * time.Millisecond) // cut: resumed
	require.Eventually(t, func() bool { return st.Resumes() == 1 }, 5*time.Second, time.Millisecond)
	second <- 2
	assert.Equal(t, 2, (<-out).V)
	close(second)
	values, err := rest(out)
	require.NoError(t, err)
	assert.Empty(t, values)
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Success, metrics.StreamIdleTimeout, metrics.StreamResumed),
		st.ExecutionEvents())
	e.assertIdle("S")
}
