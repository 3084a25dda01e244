package command

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// The bulkhead on concurrent streams of a key is the execution semaphore: a stream holds
// its permit until it ends, and one past the bound is SEMAPHORE_REJECTED (unhealthy, as
// for a command).
func TestStreamBulkhead(t *testing.T) {
	e := newEnv(t)
	s := e.streamSetter("S", "execution.isolation.semaphore.maxConcurrentRequests", "2")
	var srcs [2]chan any
	var outs [2]<-chan rxgo.Item
	for i := range srcs {
		srcs[i] = make(chan any)
		st := NewStream[any](s, fed(srcs[i], false))
		outs[i] = st.ToObservable().Observe()
		srcs[i] <- i // running
		assert.Equal(t, i, (<-outs[i]).V)
	}
	third := NewStream[any](s, emitting(1))
	_, errs := items(t, third.ToObservable())
	require.Len(t, errs, 1)
	runtimeErr(t, errs[0], RejectedSemaphoreExecution)
	assert.Equal(t, ev(metrics.SemaphoreRejected, metrics.FallbackMissing), third.ExecutionEvents())
	for i := range srcs {
		close(srcs[i])
		_, err := rest(outs[i])
		require.NoError(t, err)
	}
	e.assertIdle("S")
}

// flood returns a construct whose source sends items of 1 KiB as fast as it is let,
// counting them in produced.
func flood(produced *atomic.Int64) func(context.Context) rxgo.Observable {
	return func(context.Context) rxgo.Observable {
		return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
			for {
				if !rxgo.Of(make([]byte, 1024)).SendContext(ctx, next) {
					return
				}
				produced.Add(1)
			}
		}})
	}
}

// liveHeap returns the live heap after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// With stream.maxItemsInFlight and BLOCK, a subscriber far slower than its source holds
// the source at the bound: the items produced and not taken stay within it, and the heap
// stays flat.
func TestStreamSlowSubscriberHoldsTheSource(t *testing.T) {
	const bound = 16
	_, s, base := realStreams(t, "stream.maxItemsInFlight", "16")
	var produced atomic.Int64
	st := NewStream[[]byte](s, flood(&produced))
	var taken int64
	var heaps []uint64
	start := time.Now()
	for _, err := range st.Values(context.Background()) {
		require.NoError(t, err)
		taken++
		// produced counts an item once sent: the source's buffer, the one in the loop's hands
		// and the one being yielded are in flight
		if inFlight := produced.Load() - taken; inFlight > bound+2 {
			t.Fatalf("%d items in flight, bound %d", inFlight, bound)
		}
		if taken%100 == 0 {
			heaps = append(heaps, liveHeap())
		}
		if time.Since(start) > 1500*time.Millisecond {
			break
		}
		time.Sleep(200 * time.Microsecond) // the subscriber is slow
	}
	require.GreaterOrEqual(t, len(heaps), 3)
	lo, hi := heaps[1], heaps[1] // the first sample pays for warming up
	for _, h := range heaps[1:] {
		lo, hi = min(lo, h), max(hi, h)
	}
	t.Logf("%d items taken, %d produced; live heap %d..%d bytes over %d samples", taken, produced.Load(), lo, hi, len(heaps))
	assert.LessOrEqual(t, float64(hi), float64(lo)*1.10+64<<10, "the heap stays flat")
	assert.True(t, st.has(metrics.Cancelled), "breaking out of the loop unsubscribes")
	backToBaseline(t, base)
}

// With FAIL the stream fails once the subscriber took an item later than the grace with the
// source at the bound: a MID_STREAM_FAILURE with ErrStreamOverflow, which does not count
// against the dependency's health.
func TestStreamSlowSubscriberFailsAtTheBound(t *testing.T) {
	_, s, base := realStreams(t, "stream.maxItemsInFlight", "8", "stream.overflow", "FAIL",
		"stream.overflowGraceInMilliseconds", "1")
	var produced atomic.Int64
	st := NewStream[[]byte](s, flood(&produced))
	var taken, inFlight int64
	var last error
	for _, err := range st.Values(context.Background()) {
		if err != nil {
			last = err
			break
		}
		taken++
		time.Sleep(2 * time.Millisecond)
		inFlight = max(inFlight, produced.Load()-taken) // while the stream runs: its source is drained once it failed
	}
	runtimeErr(t, last, CommandException)
	assert.ErrorIs(t, last, ErrStreamOverflow)
	assert.LessOrEqual(t, inFlight, int64(8+2))
	assert.True(t, st.has(metrics.StreamMidFailure))
	assert.False(t, st.has(metrics.Failure))
	backToBaseline(t, base)
}
