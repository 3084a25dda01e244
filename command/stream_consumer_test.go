package command

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// endless is a source that honours its context and emits as fast as it is taken.
func endless(ctx context.Context) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(sub context.Context, next chan<- rxgo.Item) {
		for i := 0; rxgo.Of(i).SendContext(sub, next); i++ {
		}
	}})
}

// 1,000 ToObservable().Take(1) streams, observed with a context that never ends, on a key
// allowing 10 at a time: each ends as Take stops reading (CANCELLED), gives its permit
// back before Take's channel closes, and a fresh call succeeds after them (issue 34, 1).
func TestToObservableTakeOneGivesThePermitBack(t *testing.T) {
	e := newEnv(t)
	s := e.setter("S", "execution.isolation.semaphore.maxConcurrentRequests", "10")
	for i := range 1000 {
		st := NewStream[int](s, endless)
		values, errs := items(t, st.ToObservable().Take(1), rxgo.WithContext(context.Background()))
		require.Empty(t, errs, "stream %d", i)
		require.Equal(t, []any{0}, values)
		require.Equal(t, ev(metrics.Emit, metrics.Cancelled), st.ExecutionEvents(), "stream %d", i)
		require.Zero(t, e.key("S").execPermits(), "stream %d gave its permit back before Take's channel closed", i)
	}
	values, errs := items(t, NewStream[int](s, emitting(1)).ToObservable())
	assert.Empty(t, errs)
	assert.Equal(t, []any{1}, values)
	e.assertIdle("S")
}

// Breaking out of a range loop over a source gone quiet cancels the stream before the loop
// statement returns: CANCELLED, its permit back, its source's context ended, never an
// IDLE_TIMEOUT (issue 34, 2).
func TestValuesBreakCancelsAQuietStream(t *testing.T) {
	e := newEnv(t)
	s := e.setter("S", "execution.isolation.semaphore.maxConcurrentRequests", "1",
		"stream.idleTimeoutInMilliseconds", "500")
	src := newProbe(false, false)
	st := NewStream[int](s, src.construct)
	for _, err := range st.Values(context.Background()) {
		require.NoError(t, err)
		break
	}
	assert.Error(t, src.ctx.Err(), "the source's context ended before the loop returned")
	assert.Equal(t, ev(metrics.Emit, metrics.Cancelled), st.ExecutionEvents())
	e.assertIdle("S")
}

// With overflow FAIL a subscriber that takes every item at once never fails, however fast
// its source fills the items in flight; a failure before the first item stays a FAILURE
// (issue 34, 3).
func TestOverflowFailSparesAFastSubscriber(t *testing.T) {
	e := newEnv(t)
	s := e.setter("S", "stream.maxItemsInFlight", "16", "stream.overflow", "FAIL")
	for _, door := range []string{"ToObservable", "Values"} {
		for range 20 {
			st := NewStream[int](s, emittingInts(make([]int, 100)...))
			var n int
			var errs []error
			if door == "Values" {
				for _, err := range st.Values(context.Background()) {
					if err != nil {
						errs = append(errs, err)
						continue
					}
					n++
				}
			} else {
				values, es := items(t, st.ToObservable())
				n, errs = len(values), es
			}
			require.Empty(t, errs, door)
			require.Equal(t, 100, n, door)
		}
	}
	st := NewStream[int](s, func(context.Context) rxgo.Observable { return rxgo.Just(errBoom)() })
	_, errs := items(t, st.ToObservable())
	require.Len(t, errs, 1)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), st.ExecutionEvents(), "a failure before the first item")
	e.assertIdle("S")
}

// A stream resumed 3 times records 3 STREAM_RESUMED, in its events and in the key's
// counts (issue 34, 4).
func TestStreamResumedOncePerResume(t *testing.T) {
	e := newEnv(t)
	var opened atomic.Int32
	st := NewStream[int](e.streamSetter("S"), func(context.Context) rxgo.Observable {
		return numbered(0, 8, 2, &opened)
	}).WithResume(5, func(_ context.Context, last int, _ error) rxgo.Observable {
		return numbered(last+1, 8, 2, &opened)
	})
	values, errs := items(t, st.ToObservable())
	assert.Empty(t, errs)
	assert.Equal(t, []any{0, 1, 2, 3, 4, 5, 6, 7}, values)
	assert.Equal(t, 3, st.Resumes())
	n := 0
	for _, ev := range st.ExecutionEvents() {
		if ev == metrics.StreamResumed {
			n++
		}
	}
	assert.Equal(t, 3, n, "one STREAM_RESUMED per resume in the events")
	assert.False(t, st.has(metrics.Failure), "a cut the resume recovered is not a failure")
	e.clk.Advance(time.Second)
	e.rt.Metrics().Flush()
	assert.Equal(t, int64(3), e.key("S").metrics.CumulativeCount(metrics.StreamResumed), "and in the key's counts")
}

// Through ToObservable, as through Values, a source is at most stream.maxItemsInFlight
// items ahead of a subscriber that stopped taking (issue 34, 5).
func TestToObservableHoldsTheSourceAtTheBound(t *testing.T) {
	const bound = 4
	e := newEnv(t)
	s := e.setter("S", "stream.maxItemsInFlight", "4")
	var sent atomic.Int64
	st := NewStream[int](s, func(context.Context) rxgo.Observable {
		return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
			for i := 0; rxgo.Of(i).SendContext(ctx, next); i++ {
				sent.Add(1)
			}
		}})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := st.ToObservable().Observe(rxgo.WithContext(ctx))
	<-ch // taken: 1
	// sent counts an item once the channel took it: the items in flight are those sent and
	// not taken, the one the stream holds for the subscriber among them. The source fills
	// up to the bound however slow the machine, then stays there.
	require.Eventually(t, func() bool { return sent.Load() >= 1+bound }, 10*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, int64(1+bound), sent.Load(), "items sent")
	cancel()
	for range ch {
	}
}
