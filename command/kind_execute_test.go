package command

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// kindEnv is a runtime on a fake clock without hooks, for Kind.ExecutePooled's tests.
type kindEnv struct {
	t   *testing.T
	rt  *Runtime
	clk *clock.Fake
}

func newKindEnv(t *testing.T) *kindEnv {
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore(config.DefaultSource())))
	t.Cleanup(func() {
		rt.Metrics().Flush()
		rt.Close()
	})
	return &kindEnv{t: t, rt: rt, clk: clk}
}

// define defines key with properties given as name, value pairs (SEMAPHORE unless they
// say otherwise) and returns its Kind with a fallback answering "fb".
func (e *kindEnv) define(key string, kv ...string) *Kind[string] {
	props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	k, err := Define[string](Setter{Runtime: e.rt, CommandKey: key, ThreadPoolKey: key, Properties: props})
	require.NoError(e.t, err)
	return k.WithFallback(fallbackValue("fb"))
}

// counts returns key's cumulative counts of es once the bucket in progress closed.
func (e *kindEnv) counts(key string, es ...metrics.EventType) []int64 {
	return cumulativeCounts(e.rt, e.clk, key, es...)
}

// recycled reports whether the execution whose run context ctx was went back to its Kind:
// recycle zeroes it, so it is idle again.
func recycled(ctx context.Context) bool { return (*attempt)(ctx.(*runCtx)).x.door.Load() == doorIdle }

// TestKindExecutePooledReusesOnlyWhatNothingElseReaches: an execution goes back to its
// Kind only when nothing but ExecutePooled can reach it; whatever the last one did, the
// next execution starts new (a run context that has not ended, no events of the last one).
func TestKindExecutePooledReusesOnlyWhatNothingElseReaches(t *testing.T) {
	e := newKindEnv(t)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	request, _ := cache.NewRequestContext(context.Background())
	for _, tc := range []struct {
		name  string
		kv    []string
		ctx   context.Context
		run   func(ctx context.Context) (string, error)
		want  string
		reuse bool
	}{
		{"success", nil, context.Background(), value("v"), "v", true},
		{"failure with fallback", nil, context.Background(), failing(errBoom), "fb", true},
		{"a panic in run, recovered", nil, context.Background(),
			func(context.Context) (string, error) { panic("boom") }, "fb", true},
		{"run asks for Done and Err", nil, context.Background(), func(ctx context.Context) (string, error) {
			_ = ctx.Done()
			return "v", ctx.Err()
		}, "v", true},
		{"timeout decided at the run's end", []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
			context.Background(), func(context.Context) (string, error) {
				e.clk.Advance(time.Second)
				return "late", nil
			}, "fb", true},
		{"timeout ended by the timer", []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
			context.Background(), func(ctx context.Context) (string, error) {
				done := ctx.Done()
				e.clk.Advance(time.Second) // fires the key's deadline timer: it may still hold the attempt
				<-done
				return "", ctx.Err()
			}, "fb", false},
		{"run watches a caller's context that can end", nil, cancellable, func(ctx context.Context) (string, error) {
			_ = ctx.Done()
			return "v", nil
		}, "v", false},
		{"run registers an AfterFunc", nil, context.Background(), func(ctx context.Context) (string, error) {
			stop := context.AfterFunc(ctx, func() {})
			stop()
			return "v", nil
		}, "v", false},
		{"the request log holds it", nil, request, value("v"), "v", false},
		{"THREAD isolation", []string{"execution.isolation.strategy", "THREAD"}, context.Background(),
			value("v"), "v", true},
		{"THREAD isolation, failure with fallback", []string{"execution.isolation.strategy", "THREAD"},
			context.Background(), failing(errBoom), "fb", true},
		{"THREAD isolation, run asks for Done and Err", []string{"execution.isolation.strategy", "THREAD"},
			context.Background(), func(ctx context.Context) (string, error) {
				_ = ctx.Done()
				return "v", ctx.Err()
			}, "v", true},
		{"THREAD isolation, timeout ended by the timer while run goes on", []string{"execution.isolation.strategy", "THREAD",
			"execution.isolation.thread.timeoutInMilliseconds", "100"}, context.Background(),
			func(ctx context.Context) (string, error) {
				done := ctx.Done()
				// the caller gets the fallback while the worker holds the attempt; to the
				// timeout exactly: the caller goes on as the timer fires, and a longer Advance
				// would still be moving the clock past the next executions' deadlines
				e.clk.Advance(100 * time.Millisecond)
				<-done
				return "", ctx.Err()
			}, "fb", false},
		{"a retrying key", []string{"retry.maxAttempts", "2"}, context.Background(), value("v"), "v", false},
	} {
		k := e.define(tc.name, tc.kv...)
		var got context.Context
		v, err := k.ExecutePooled(tc.ctx, func(ctx context.Context) (string, error) {
			got = ctx
			return tc.run(ctx)
		})
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, v, tc.name)
		assert.Equal(t, tc.reuse, recycled(got), tc.name)

		for range 3 { // the next executions start new
			v, err = k.ExecutePooled(context.Background(), func(ctx context.Context) (string, error) {
				require.NoError(t, ctx.Err(), tc.name)
				select {
				case <-ctx.Done():
					t.Error(tc.name, ": a new execution's context has ended")
				default:
				}
				return "next", nil
			})
			require.NoError(t, err, tc.name)
			assert.Equal(t, "next", v, tc.name)
		}
	}
	e.assertIdleKeys()
}

// assertIdleKeys checks that every key gave back what it held and that no deadline waits.
func (e *kindEnv) assertIdleKeys() {
	e.rt.keys.Range(func(_, v any) bool {
		ks := v.(*keyState)
		assert.Zero(e.t, ks.metrics.CurrentConcurrency(), ks.info.CommandKey)
		assert.Zero(e.t, ks.execPermits(), ks.info.CommandKey)
		assert.Zero(e.t, ks.fallbackSem.InUse(), ks.info.CommandKey)
		if qs := ks.deadlines.stripes.Load(); qs != nil {
			for i := range *qs {
				q := &(*qs)[i]
				q.mu.Lock()
				assert.Nil(e.t, q.head, "deadline queue %d of %s", i, ks.info.CommandKey)
				q.mu.Unlock()
			}
		}
		return true
	})
}

// TestKindExecutePooledAfterPanicsAndGoexit: a run or fallback that panics or calls
// runtime.Goexit ends its execution (a Goexit never returns to ExecutePooled, which leaves
// the execution to the garbage collector); the Kind then runs thousands more, mixed, with
// every outcome and every count exact.
func TestKindExecutePooledAfterPanicsAndGoexit(t *testing.T) {
	e := newKindEnv(t)
	k := e.define("hostile", "circuitBreaker.enabled", "false")
	goexit := func(f func()) { // runs f on a goroutine of its own and waits for it
		var wg sync.WaitGroup
		wg.Go(f)
		wg.Wait()
	}
	_, err := k.ExecutePooled(context.Background(), func(context.Context) (string, error) { panic("run") })
	require.NoError(t, err, "the fallback recovers a panicking run")
	goexit(func() {
		_, _ = k.ExecutePooled(context.Background(), func(context.Context) (string, error) {
			runtime.Goexit()
			return "", nil
		})
		t.Error("Goexit returned")
	})
	panicking := k.WithFallback(func(context.Context, error) (string, error) { panic("fallback") })
	_, err = panicking.ExecutePooled(context.Background(), failing(errBoom))
	runtimeErr(t, err, CommandException)
	goexit(func() {
		_, _ = k.WithFallback(func(context.Context, error) (string, error) {
			runtime.Goexit()
			return "", nil
		}).ExecutePooled(context.Background(), failing(errBoom))
		t.Error("Goexit returned")
	})

	const n = 3000
	for i := range n {
		v, err := k.ExecutePooled(context.Background(), func(ctx context.Context) (string, error) {
			if i%3 == 0 {
				return "", errBoom
			}
			return "v", ctx.Err()
		})
		require.NoError(t, err)
		if i%3 == 0 {
			require.Equal(t, "fb", v)
		} else {
			require.Equal(t, "v", v)
		}
	}
	// the hostile four: a FAILURE each (a panic, a Goexit, twice), two recovered by the
	// fallback, one whose fallback panicked, one whose goroutine exited in the fallback
	assert.Equal(t, []int64{2 * n / 3, n/3 + 4, n/3 + 1, 1},
		e.counts("hostile", metrics.Success, metrics.Failure, metrics.FallbackSuccess, metrics.FallbackFailure))
	e.assertIdleKeys()
}

// TestKindExecutePooledFlatOutIsExact: goroutines execute flat out through one Kind with mixed
// outcomes (successes, failures, runs that wait for their context until the timeout ends
// it under SEMAPHORE, short circuits once the breaker trips) while the fake clock moves;
// what the callers got matches the key's counts exactly.
func TestKindExecutePooledFlatOutIsExact(t *testing.T) {
	e := newKindEnv(t)
	k0, err := Define[int](Setter{Runtime: e.rt, CommandKey: "flat", Properties: config.Overrides{
		"execution.isolation.strategy":                        "SEMAPHORE",
		"execution.isolation.semaphore.maxConcurrentRequests": "1000",
		"fallback.isolation.semaphore.maxConcurrentRequests":  "1000",
		"execution.isolation.thread.timeoutInMilliseconds":    "10",
		"circuitBreaker.errorThresholdPercentage":             "30",
		"circuitBreaker.sleepWindowInMilliseconds":            "5",
		"metrics.healthSnapshot.intervalInMilliseconds":       "10",
	}})
	require.NoError(t, err)
	const (
		ok = iota
		failure
		timedOut
		shortCircuited
		kinds
	)
	k := k0.WithFallback(func(_ context.Context, err error) (int, error) {
		switch {
		case errors.Is(err, ErrShortCircuited):
			return shortCircuited, nil
		case errors.Is(err, ErrTimeout):
			return timedOut, nil
		}
		return failure, nil
	})
	stop := e.clk.Run(time.Millisecond, 20*time.Microsecond)
	const goroutines, per = 8, 500
	var got [kinds]atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range per {
				v, err := k.ExecutePooled(context.Background(), func(ctx context.Context) (int, error) {
					switch (g + i) % 8 { // 3/8 errors: the breaker trips, and closes after a trial
					case 0, 1, 2, 3, 4:
						return ok, nil
					case 5, 6:
						return 0, errBoom
					}
					<-ctx.Done() // until the timeout ends it
					return 0, ctx.Err()
				})
				if err != nil {
					t.Error(err)
					return
				}
				got[v].Add(1)
			}
		})
	}
	wg.Wait()
	stop()
	t.Logf("success %d, failure %d, timeout %d, short circuit %d", got[ok].Load(), got[failure].Load(),
		got[timedOut].Load(), got[shortCircuited].Load())
	for i := range got {
		assert.Positive(t, got[i].Load(), "outcome %d happened", i)
	}
	want := []int64{got[ok].Load(), got[failure].Load(), got[timedOut].Load(), got[shortCircuited].Load(),
		got[failure].Load() + got[timedOut].Load() + got[shortCircuited].Load()}
	assert.Equal(t, want, e.counts("flat", metrics.Success, metrics.Failure, metrics.Timeout,
		metrics.ShortCircuited, metrics.FallbackSuccess))
	assert.Equal(t, int64(goroutines*per), want[0]+want[4])
	e.assertIdleKeys()
}
