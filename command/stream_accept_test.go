package command

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// realStreams returns a runtime on the system clock and the Setter of a stream key with
// properties kv, room for 1,000 concurrent streams, no execution timeout and a breaker
// that stays closed, and the goroutines running once a first stream of the key ran.
func realStreams(t *testing.T, kv ...string) (*Runtime, Setter, int) {
	t.Helper()
	rt := NewRuntime()
	t.Cleanup(rt.Close)
	props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE",
		"execution.isolation.semaphore.maxConcurrentRequests": "1000", "execution.timeout.enabled": "false",
		"circuitBreaker.requestVolumeThreshold": "100000"}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	s := Setter{Runtime: rt, CommandKey: "Real", Properties: props}
	_, errs := items(t, NewStream[any](s, emitting(0)).ToObservable())
	require.Empty(t, errs)
	time.Sleep(10 * time.Millisecond) // the subscription's goroutines end
	return rt, s, runtime.NumGoroutine()
}

// backToBaseline waits until the goroutines are back to n (bounded by waitGoroutines, so
// that a busy machine cannot fail it) and logs how long that took: within 100 ms on an
// idle one.
func backToBaseline(t *testing.T, n int) {
	t.Helper()
	start := time.Now()
	waitGoroutines(t, n)
	t.Logf("goroutines back to %d after %v", n, time.Since(start))
}

// percentile returns the p-th percentile of ds (sorted in place).
func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// 100 streams stall after their first item: each is detected at the idle limit, late by
// at most 10 ms at the median and 50 ms at the 99th percentile (measured on the
// subscriber, so the lateness includes the handover both ways). A busy machine may spoil
// a round: up to five rounds are run, and one must meet both bounds.
func TestStreamStalledDetectedAtIdleLimit(t *testing.T) {
	const n, idle = 100, 50 * time.Millisecond
	_, s, base := realStreams(t, "stream.idleTimeoutInMilliseconds", "50")
	for round := 1; ; round++ {
		med, p99, early := stallRound(t, s, n, idle)
		t.Logf("round %d: %d stalled streams, idle limit %v: detected late by %v median, %v p99", round, n, idle, med, p99)
		assert.GreaterOrEqual(t, early, -time.Millisecond, "never before the limit")
		backToBaseline(t, base)
		if med <= 10*time.Millisecond && p99 <= 50*time.Millisecond || round == 5 {
			assert.LessOrEqual(t, med, 10*time.Millisecond)
			assert.LessOrEqual(t, p99, 50*time.Millisecond)
			return
		}
	}
}

// stallRound runs n streams that stall after one item and returns how late their idle
// limit was detected: the median, the 99th percentile and the least.
func stallRound(t *testing.T, s Setter, n int, idle time.Duration) (med, p99, least time.Duration) {
	late := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			st := NewStream[int](s, func(context.Context) rxgo.Observable {
				return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
					if rxgo.Of(i).SendContext(ctx, next) {
						<-ctx.Done() // stalled
					}
				}})
			})
			var got time.Time
			for v, err := range st.Values(context.Background()) {
				if err != nil {
					assert.ErrorIs(t, err, ErrStreamIdleTimeout)
					late[i] = time.Since(got) - idle
					break
				}
				assert.Equal(t, i, v)
				got = time.Now()
			}
			assert.True(t, st.has(metrics.StreamIdleTimeout) && st.has(metrics.StreamMidFailure))
		})
	}
	wg.Wait()
	return percentile(late, 0.5), percentile(late, 0.99), late[0]
}

// 100 streams whose first item comes after the establishment limit: each fails as
// establishment (ESTABLISH_TIMEOUT, a TIMEOUT for the caller).
func TestStreamDelayedStartsFailAsEstablishment(t *testing.T) {
	const n = 100
	rt, s, base := realStreams(t, "stream.establishTimeoutInMilliseconds", "30")
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			st := NewStream[int](s, func(context.Context) rxgo.Observable {
				return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
					select {
					case <-time.After(300 * time.Millisecond):
						rxgo.Of(1).SendContext(ctx, next)
					case <-ctx.Done():
					}
				}})
			})
			values, errs := items(t, st.ToObservable())
			assert.Empty(t, values)
			if assert.Len(t, errs, 1) {
				runtimeErr(t, errs[0], Timeout)
				assert.ErrorIs(t, errs[0], ErrStreamEstablishTimeout)
			}
			assert.Equal(t, ev(metrics.FallbackMissing, metrics.StreamEstablishTimeout), st.ExecutionEvents())
		})
	}
	wg.Wait()
	rt.Metrics().Flush()
	require.Eventually(t, func() bool {
		return rt.Metrics().Command("Real").CumulativeCount(metrics.StreamEstablishTimeout) == n
	}, 5*time.Second, 10*time.Millisecond, "visible per key")
	backToBaseline(t, base)
}
