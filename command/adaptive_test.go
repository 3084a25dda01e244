package command

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// adaptiveSetter is a Setter of an ADAPTIVE key whose limit stays at limit.
func (e *env) adaptiveSetter(key string, limit string, kv ...string) Setter {
	return e.setter(key, append([]string{"execution.isolation.strategy", "ADAPTIVE",
		"execution.isolation.adaptive.minLimit", limit, "execution.isolation.adaptive.initialLimit", limit,
		"execution.isolation.adaptive.maxLimit", limit}, kv...)...)
}

// holdOne starts an execution of s that holds its permit until the returned function is
// called, which waits for it to end and returns its error.
func holdOne(ctx context.Context, s Setter) func() error {
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := New(s, holdRun(started, release)).Execute(ctx)
		done <- err
	}()
	<-started
	return func() error {
		close(release)
		return <-done
	}
}

func TestAdaptiveIsolationTakesTheSemaphoresPlace(t *testing.T) {
	e := newEnv(t)
	cmd := New(e.adaptiveSetter("A", "4"), value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	var stages []string
	for l := e.key("A").chain.Load().chain; l != nil; l = l.next {
		switch l.step.(type) {
		case semaphore:
			stages = append(stages, "semaphore")
		case adaptiveLimit:
			stages = append(stages, "adaptive")
		}
	}
	assert.Equal(t, []string{"adaptive"}, stages)
	e.assertIdle("A")
}

func TestAdaptiveRejection(t *testing.T) {
	for _, withFallback := range []bool{true, false} {
		e := newEnv(t)
		s := e.adaptiveSetter("R", "1")
		done := holdOne(context.Background(), s)
		assert.Equal(t, 1, e.key("R").adaptiveLimiter().Inflight())

		second := New(s, value("never"))
		var seen error
		if withFallback {
			second.WithFallback(func(_ context.Context, err error) (string, error) {
				seen = err
				return "fb", nil
			})
		}
		got, err := second.Execute(context.Background())
		if withFallback {
			require.NoError(t, err)
			assert.Equal(t, "fb", got)
			assert.ErrorIs(t, seen, adaptive.ErrLimit, "the fallback gets the reason")
			assert.Equal(t, ev(metrics.FallbackSuccess, metrics.AdaptiveRejected), second.ExecutionEvents())
		} else {
			re := runtimeErr(t, err, RejectedAdaptiveExecution)
			assert.ErrorIs(t, err, ErrAdaptiveRejected)
			assert.ErrorIs(t, err, adaptive.ErrLimit)
			assert.Equal(t, "R could not acquire an adaptive permit for execution and no fallback available (cause: adaptive: concurrency limit reached)", re.Error())
			assert.Equal(t, ev(metrics.FallbackMissing, metrics.AdaptiveRejected), second.ExecutionEvents())
		}
		assert.True(t, second.IsResponseRejected())
		assert.True(t, second.IsResponseAdaptiveRejected())
		require.NoError(t, done())
		e.assertIdle("R")

		e.rt.Metrics().Flush()
		e.clk.Advance(time.Second)
		e.rt.Metrics().Flush()
		h := e.key("R").metrics.HealthCounts()
		assert.Equal(t, int64(1), h.TotalRequests, "the rejection is neutral to health, unlike SEMAPHORE_REJECTED")
		assert.Zero(t, h.ErrorCount)
	}
}

func TestTheLowestCriticalityIsRejectedFirst(t *testing.T) {
	e := newEnv(t)
	s := e.adaptiveSetter("C", "2") // SHEDDABLE may use half: 1
	done := holdOne(adaptive.WithCriticality(context.Background(), adaptive.Sheddable), s)
	_, err := New(s, value("v")).Execute(adaptive.WithCriticality(context.Background(), adaptive.Sheddable))
	assert.ErrorIs(t, err, adaptive.ErrCriticality)
	got, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err, "a CRITICAL one (the default) gets the rest")
	assert.Equal(t, "v", got)
	require.NoError(t, done())
	e.assertIdle("C")
}

// Every way an execution can end gives its permit back, and the next execution gets it.
func TestAdaptivePermitsComeBackOnEveryPath(t *testing.T) {
	errBoom := errors.New("boom")
	for name, run := range map[string]func(e *env) func(context.Context) (string, error){
		"success": func(*env) func(context.Context) (string, error) { return value("v") },
		"failure": func(*env) func(context.Context) (string, error) { return failing(errBoom) },
		"bad request": func(*env) func(context.Context) (string, error) {
			return failing(&badRequestError{err: errBoom})
		},
		"panic": func(*env) func(context.Context) (string, error) {
			return func(context.Context) (string, error) { panic("boom") }
		},
		"goexit": func(*env) func(context.Context) (string, error) {
			return func(context.Context) (string, error) { runtime.Goexit(); return "", nil }
		},
		"timeout": func(e *env) func(context.Context) (string, error) { return e.sleeper(2*time.Second, "late") },
		"cancel": func(*env) func(context.Context) (string, error) {
			return func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() }
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			s := e.adaptiveSetter("P", "1")
			ctx, cancel := context.WithCancel(context.Background())
			if name == "cancel" {
				cancel()
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, _ = New(s, run(e)).WithFallback(fallbackValue("fb")).Execute(ctx)
			}()
			<-done
			cancel()
			e.assertIdle("P")
			got, err := New(s, value("next")).Execute(context.Background())
			require.NoError(t, err, "the permit came back")
			assert.Equal(t, "next", got)
		})
	}
}

func TestKeysOfAGroupShareOneLimit(t *testing.T) {
	e := newEnv(t)
	a := e.adaptiveSetter("GA", "1", "execution.isolation.adaptive.group", "db")
	b := e.adaptiveSetter("GB", "1", "execution.isolation.adaptive.group", "db")
	c := e.adaptiveSetter("GC", "1")
	done := holdOne(context.Background(), a)
	_, err := New(b, value("v")).Execute(context.Background())
	assert.ErrorIs(t, err, adaptive.ErrLimit, "GA holds the group's only permit")
	_, err = New(c, value("v")).Execute(context.Background())
	require.NoError(t, err, "GC has a limit of its own")
	require.NoError(t, done())
	_, err = New(b, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Same(t, e.key("GA").adaptiveLimiter(), e.key("GB").adaptiveLimiter())
	e.assertIdle("GA")
	e.assertIdle("GB")
}

func TestAdaptiveQueue(t *testing.T) {
	e := newEnv(t)
	s := e.adaptiveSetter("Q", "1", "execution.isolation.adaptive.queueSize", "1")
	done := holdOne(context.Background(), s)
	l := e.key("Q").adaptiveLimiter()

	waited := make(chan string)
	go func() {
		v, err := New(s, value("waited")).Execute(context.Background())
		assert.NoError(t, err)
		waited <- v
	}()
	for l.Queued() == 0 {
		runtime.Gosched()
	}
	_, err := New(s, value("v")).Execute(adaptive.WithCriticality(context.Background(), adaptive.Sheddable))
	assert.ErrorIs(t, err, ErrAdaptiveRejected)
	assert.ErrorIs(t, err, adaptive.ErrQueueFull, "a lower call does not push a CRITICAL one out")
	require.NoError(t, done())
	assert.Equal(t, "waited", <-waited, "the freed permit went to the waiter")

	// a waiter waits at most the execution timeout
	done = holdOne(context.Background(), s)
	armed := e.clk.Pending()
	rejected := make(chan error)
	go func() {
		_, err := New(s, value("v")).Execute(context.Background())
		rejected <- err
	}()
	e.clk.BlockUntil(armed + 1) // the waiter's timer: it queues first, then arms it
	e.clk.Advance(time.Second)
	assert.ErrorIs(t, <-rejected, adaptive.ErrQueueTimeout)
	assert.ErrorIs(t, done(), ErrTimeout, "the holder ran for the timeout too")

	done = holdOne(context.Background(), s)

	// and no longer than its caller: it is CANCELLED
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error)
	leaving := New(s, value("v")).WithFallback(fallbackValue("fb"))
	go func() {
		_, err := leaving.Execute(ctx)
		left <- err
	}()
	for l.Queued() == 0 {
		runtime.Gosched()
	}
	cancel()
	assert.ErrorIs(t, <-left, context.Canceled)
	assert.Equal(t, ev(metrics.Cancelled), leaving.ExecutionEvents())
	require.NoError(t, done())
	e.assertIdle("Q")
}

func TestAdaptivePropertiesApplyLive(t *testing.T) {
	e := newEnv(t)
	s := e.adaptiveSetter("L", "1")
	_, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	l := e.key("L").adaptiveLimiter()
	assert.Equal(t, 1, l.Limit())
	e.src.Set("hystrix.command.L.execution.isolation.adaptive.maxLimit", "5")
	e.src.Set("hystrix.command.L.execution.isolation.adaptive.initialLimit", "3")
	e.src.Set("hystrix.command.L.execution.isolation.adaptive.minLimit", "3")
	_, err = New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Same(t, l, e.key("L").adaptiveLimiter(), "the key keeps its limiter")
	assert.Equal(t, 3, l.Limit(), "clamped into the new range")
}

// A key's own limiter goes with the key when it is evicted for idleness; a group's stays.
// While the key is known, a change of its properties configures the limiter it has.
func TestAdaptiveLimiterIsForgottenWithItsKey(t *testing.T) {
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore()), WithMetricsOptions(metrics.WithIdleTimeout(time.Second)))
	defer rt.Close()
	for _, key := range []string{"Own", "Grouped"} {
		props := config.Overrides{"execution.isolation.strategy": "ADAPTIVE"}
		if key == "Grouped" {
			props["execution.isolation.adaptive.group"] = "g"
		}
		_, err := New(Setter{Runtime: rt, CommandKey: key, Properties: props}, value("v")).Execute(context.Background())
		require.NoError(t, err)
	}
	limiters := func() (own, group int) {
		rt.shared.mu.Lock()
		defer rt.shared.mu.Unlock()
		for k := range rt.shared.m {
			switch k.(type) {
			case adaptiveOwn:
				own++
			case adaptiveGroup:
				group++
			}
		}
		return own, group
	}
	own, group := limiters()
	require.Equal(t, [2]int{1, 1}, [2]int{own, group})
	for range 8 { // past every window and the idle timeout
		clk.Advance(10 * time.Second)
	}
	rt.Metrics().Flush()
	require.Empty(t, rt.Metrics().Commands())
	own, group = limiters()
	assert.Equal(t, [2]int{0, 1}, [2]int{own, group}, "the key's own limiter went with it, the group's stays")
}
