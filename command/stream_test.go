package command

import (
	"context"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func emitting(values ...any) func(context.Context) rxgo.Observable {
	return func(context.Context) rxgo.Observable { return rxgo.Just(values...)() }
}

func TestStreamSuccess(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, emitting(1, 2, 3))
	values, errs := items(t, st.ToObservable())
	assert.Equal(t, []any{1, 2, 3}, values)
	assert.Empty(t, errs)
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Emit, metrics.Success), st.ExecutionEvents())
	assert.Equal(t, config.Semaphore, config.ExecutionIsolationStrategy.In(e.key("S").props).Get(), "streams default to SEMAPHORE")
	assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit", "OnExecutionEmit", "OnEmit",
		"OnExecutionEmit", "OnEmit", "OnExecutionSuccess", "OnSuccess"}, e.rec.Names())
	e.assertIdle("S")
}

func TestStreamFailureWithFallbackStream(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, func(context.Context) rxgo.Observable {
		return rxgo.Just(1, errBoom)()
	}).WithFallback(func(_ context.Context, err error) rxgo.Observable {
		assert.Equal(t, errBoom, err)
		return rxgo.Just(10, 20)()
	})
	values, errs := items(t, st.ToObservable())
	assert.Equal(t, []any{1, 10, 20}, values)
	assert.Empty(t, errs)
	assert.Equal(t, ev(metrics.Emit, metrics.Failure, metrics.FallbackEmit, metrics.FallbackEmit, metrics.FallbackSuccess,
		metrics.StreamMidFailure), st.ExecutionEvents(), "a failure after the first item is a FAILURE, marked MID_STREAM_FAILURE")
	e.assertIdle("S")
}

func TestStreamFailureWithoutFallback(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, func(context.Context) rxgo.Observable {
		return rxgo.Just(errBoom)()
	})
	_, errs := items(t, st.ToObservable())
	require.Len(t, errs, 1)
	runtimeErr(t, errs[0], CommandException)
	assert.Equal(t, ev(metrics.Failure, metrics.FallbackMissing), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamTimeout(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S", Properties: config.Overrides{
		"execution.isolation.thread.timeoutInMilliseconds": "100"}},
		func(context.Context) rxgo.Observable {
			return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
				if rxgo.Of(1).SendContext(ctx, next) {
					<-ctx.Done()
				}
			}})
		}).WithFallback(func(context.Context, error) rxgo.Observable { return rxgo.Just("fb")() })
	ch := st.ToObservable().Observe()
	first := <-ch
	assert.Equal(t, 1, first.V)
	e.clk.Advance(100 * time.Millisecond)
	var rest []any
	for it := range ch {
		require.NoError(t, it.E)
		rest = append(rest, it.V)
	}
	assert.Equal(t, []any{"fb"}, rest)
	assert.Equal(t, ev(metrics.Emit, metrics.Timeout, metrics.FallbackEmit, metrics.FallbackSuccess), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamObserveReplays(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, emitting("a", "b"))
	obs := st.Observe(context.Background())
	for range 2 {
		values, errs := items(t, obs)
		assert.Equal(t, []any{"a", "b"}, values)
		assert.Empty(t, errs)
	}
	_, errs := items(t, st.ToObservable())
	require.Len(t, errs, 1, "single use")
	runtimeErr(t, errs[0], BadRequestException)
	e.assertIdle("S")
}

func TestStreamShortCircuit(t *testing.T) {
	e := newEnv(t)
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S", Properties: config.Overrides{
		"circuitBreaker.forceOpen": "true"}}, emitting(1)).
		WithFallback(func(context.Context, error) rxgo.Observable { return rxgo.Just(2)() })
	values, _ := items(t, st.ToObservable())
	assert.Equal(t, []any{2}, values)
	assert.Equal(t, ev(metrics.ShortCircuited, metrics.FallbackEmit, metrics.FallbackSuccess), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamUnsubscribe(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	st := NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, func(context.Context) rxgo.Observable {
		return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
			for i := 0; rxgo.Of(i).SendContext(ctx, next); i++ {
			}
		}})
	})
	ch := st.ToObservable().Observe(rxgo.WithContext(ctx))
	<-ch
	cancel()
	for range ch {
	}
	waitComplete(t, st.IsCancelled)
	assert.False(t, st.IsExecutionComplete(), "an unsubscribed execution is not complete, as in Hystrix")
	assert.Contains(t, e.rec.Names(), "OnUnsubscribe")
	e.assertIdle("S")
}

func TestStreamRequestCache(t *testing.T) {
	e := newEnv(t)
	ctx := requestContext(t)
	calls := 0
	newStream := func() *Stream[any] {
		return NewStream[any](Setter{Runtime: e.rt, CommandKey: "S"}, func(context.Context) rxgo.Observable {
			calls++
			return rxgo.Just(1, 2, errBoom)()
		}).WithFallback(func(context.Context, error) rxgo.Observable { return rxgo.Just(3)() }).WithCacheKey("k")
	}
	first := newStream()
	values, errs := items(t, first.ToObservable(), rxgo.WithContext(ctx))
	assert.Equal(t, []any{1, 2, 3}, values)
	assert.Empty(t, errs)
	e.rec.Reset()
	second := newStream()
	values, errs = items(t, second.ToObservable(), rxgo.WithContext(ctx))
	assert.Equal(t, []any{1, 2, 3}, values)
	assert.Empty(t, errs)
	assert.Equal(t, 1, calls)
	want := ev(metrics.Emit, metrics.Emit, metrics.Failure, metrics.FallbackEmit, metrics.FallbackSuccess,
		metrics.StreamMidFailure)
	assert.Equal(t, want, first.ExecutionEvents())
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Failure, metrics.FallbackEmit, metrics.FallbackSuccess,
		metrics.ResponseFromCache, metrics.StreamMidFailure), second.ExecutionEvents())
	assert.Equal(t, []string{"OnCacheHit"}, e.rec.Names())
	e.assertIdle("S")
}

func TestStreamCountsOnlyTheValuesDelivered(t *testing.T) {
	e := newEnv(t)
	st := NewStream[int](Setter{Runtime: e.rt, CommandKey: "S"}, emittingInts(1, 2, 3, 4))
	var got []int
	for v, err := range st.Values(context.Background()) {
		require.NoError(t, err)
		got = append(got, v)
		if len(got) == 2 {
			break // the third value reaches the sink, which refuses it
		}
	}
	assert.Equal(t, []int{1, 2}, got)
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Cancelled), st.ExecutionEvents())
	e.assertIdle("S")
}
