package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// fed returns a construct whose stream sends what the test puts on ch (an error ends it
// with that error), until ch is closed or the stream's context ends. established, when
// true, marks the stream established as soon as it is opened.
func fed(ch <-chan any, established bool) func(context.Context) rxgo.Observable {
	return func(ctx context.Context) rxgo.Observable {
		if established {
			StreamEstablished(ctx)
		}
		return rxgo.Defer([]rxgo.Producer{func(pctx context.Context, next chan<- rxgo.Item) {
			for {
				select {
				case v, ok := <-ch:
					if !ok {
						return
					}
					if err, isErr := v.(error); isErr {
						rxgo.Error(err).SendContext(pctx, next)
						return
					}
					if !rxgo.Of(v).SendContext(pctx, next) {
						return
					}
				case <-pctx.Done():
					return
				}
			}
		}})
	}
}

// streamProps are the properties of the stream tests: no execution timeout, so that only
// the stream's own limits end it.
func (e *env) streamSetter(key string, kv ...string) Setter {
	return e.setter(key, append([]string{"execution.timeout.enabled", "false"}, kv...)...)
}

// watching waits until st's run watches its limits and is waiting for its source (not
// handing an item over), and returns the watch.
func watching[T any](t *testing.T, st *Stream[T]) *streamWatch {
	t.Helper()
	var w *streamWatch
	require.Eventually(t, func() bool {
		w = st.watching()
		return w != nil && !w.delivering.Load()
	}, 5*time.Second, time.Millisecond)
	return w
}

// rest collects what is left on ch: the values and the error.
func rest(ch <-chan rxgo.Item) (values []any, err error) {
	for it := range ch {
		if it.Error() {
			err = it.E
			continue
		}
		values = append(values, it.V)
	}
	return values, err
}

func TestStreamEstablishTimeout(t *testing.T) {
	e := newEnv(t)
	src := make(chan any)
	st := NewStream[any](e.streamSetter("S", "stream.establishTimeoutInMilliseconds", "100"), fed(src, false))
	out := st.ToObservable().Observe()
	watching(t, st)
	e.clk.Advance(99 * time.Millisecond)
	e.clk.Advance(time.Millisecond)
	values, err := rest(out)
	assert.Empty(t, values)
	runtimeErr(t, err, Timeout)
	assert.ErrorIs(t, err, ErrStreamEstablishTimeout)
	assert.ErrorIs(t, err, ErrTimeout, "an establishment limit is a TIMEOUT for the caller")
	assert.Equal(t, ev(metrics.FallbackMissing, metrics.StreamEstablishTimeout), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamFirstItemTimeoutAfterEstablishment(t *testing.T) {
	e := newEnv(t)
	src := make(chan any)
	st := NewStream[any](e.streamSetter("S", "stream.establishTimeoutInMilliseconds", "1000",
		"stream.firstItemTimeoutInMilliseconds", "50"), fed(src, true)).
		WithFallback(func(_ context.Context, err error) rxgo.Observable {
			assert.ErrorIs(t, err, ErrStreamFirstItemTimeout)
			return rxgo.Just("fb")()
		})
	out := st.ToObservable().Observe()
	watching(t, st)
	e.clk.Advance(50 * time.Millisecond)
	values, err := rest(out)
	require.NoError(t, err)
	assert.Equal(t, []any{"fb"}, values)
	assert.Equal(t, ev(metrics.FallbackEmit, metrics.FallbackSuccess, metrics.StreamEstablishTimeout), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamIdleTimeoutIsMidStream(t *testing.T) {
	e := newEnv(t)
	src := make(chan any)
	st := NewStream[any](e.streamSetter("S", "stream.idleTimeoutInMilliseconds", "100"), fed(src, false))
	out := st.ToObservable().Observe()
	for i := range 5 { // items 90 ms apart keep it alive
		src <- i
		assert.Equal(t, i, (<-out).V)
		watching(t, st)
		e.clk.Advance(90 * time.Millisecond)
	}
	e.clk.Advance(10 * time.Millisecond)
	values, err := rest(out)
	assert.Empty(t, values)
	runtimeErr(t, err, CommandException)
	assert.ErrorIs(t, err, ErrStreamIdleTimeout)
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit, metrics.Emit, metrics.Failure,
		metrics.FallbackMissing, metrics.StreamIdleTimeout, metrics.StreamMidFailure), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamIdleClockWaitsForTheSubscriber(t *testing.T) {
	e := newEnv(t)
	src := make(chan any)
	st := NewStream[any](e.streamSetter("S", "stream.idleTimeoutInMilliseconds", "100"), fed(src, false))
	out := st.ToObservable().Observe()
	src <- 1
	require.Eventually(t, func() bool { w := st.watching(); return w != nil && w.delivering.Load() },
		5*time.Second, time.Millisecond)
	e.clk.Advance(time.Second) // the subscriber takes its time: the source is not idle
	assert.Equal(t, 1, (<-out).V)
	watching(t, st)
	close(src)
	values, err := rest(out)
	require.NoError(t, err)
	assert.Empty(t, values)
	assert.Equal(t, ev(metrics.Emit, metrics.Success), st.ExecutionEvents())
	e.assertIdle("S")
}

func TestStreamMaxLifetime(t *testing.T) {
	e := newEnv(t)
	src := make(chan any)
	st := NewStream[any](e.streamSetter("S", "stream.maxLifetimeInMilliseconds", "200",
		"stream.idleTimeoutInMilliseconds", "150"), fed(src, false))
	out := st.ToObservable().Observe()
	src <- 1
	<-out
	watching(t, st)
	e.clk.Advance(100 * time.Millisecond)
	src <- 2
	<-out
	watching(t, st)
	e.clk.Advance(100 * time.Millisecond)
	_, err := rest(out)
	assert.ErrorIs(t, err, ErrStreamLifetime)
	assert.Equal(t, ev(metrics.Emit, metrics.Emit, metrics.Failure, metrics.FallbackMissing, metrics.StreamMidFailure),
		st.ExecutionEvents())
	e.assertIdle("S")
}

// A failure before the first item counts like a command's: the breaker opens on the same
// count of ESTABLISH_TIMEOUTs as of FAILUREs. A stream cut after its first item is a
// FAILURE, as in Hystrix: the breaker opens on the same count of cuts, and never with
// stream.cutsCountForHealth=false.
func TestStreamBreakerCountsEstablishmentLikeUnary(t *testing.T) {
	props := []string{"circuitBreaker.requestVolumeThreshold", "5", "circuitBreaker.evaluateOnFailure", "true",
		"stream.establishTimeoutInMilliseconds", "100"}
	opensAfter := func(e *env, key string, fail func(s Setter) error) int {
		s := e.streamSetter(key, props...)
		for n := 1; n <= 50; n++ {
			if err := fail(s); errors.Is(err, ErrShortCircuited) {
				return n - 1
			}
		}
		return -1
	}
	e := newEnv(t)
	unary := opensAfter(e, "U", func(s Setter) error {
		_, err := New(s, failing(errBoom)).Execute(context.Background())
		return err
	})
	stream := opensAfter(e, "S", func(s Setter) error {
		st := NewStream[any](s, fed(nil, false))
		out := st.ToObservable().Observe()
		if st.watching() == nil { // not short-circuited: wait for its run
			for !st.IsExecutionComplete() && st.watching() == nil {
				time.Sleep(time.Millisecond)
			}
		}
		if !st.IsExecutionComplete() {
			e.clk.Advance(100 * time.Millisecond)
		}
		_, err := rest(out)
		return err
	})
	require.Positive(t, unary)
	t.Logf("the breaker opened after %d failed commands, %d streams not established", unary, stream)
	assert.Equal(t, unary, stream, "the breaker opens on the same count")

	cutStream := func(s Setter) error {
		_, err := rest(NewStream[any](s, emitting(1, errBoom)).ToObservable().Observe())
		return err
	}
	assert.Equal(t, unary, opensAfter(e, "C", cutStream), "streams cut after their first item open the breaker as failures do")
	props = append(props, "stream.cutsCountForHealth", "false")
	assert.Equal(t, -1, opensAfter(e, "D", cutStream), "with stream.cutsCountForHealth=false cuts never open it")
}
