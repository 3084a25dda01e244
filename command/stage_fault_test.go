package command

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// faulty returns a Setter of key injecting fault into every execution.
func (e *env) faulty(key, fault string, kv ...string) Setter {
	return e.setter(key, append([]string{"faultInjection.enabled", "true", "faultInjection.percentage", "100",
		"faultInjection.fault", fault}, kv...)...)
}

// Each fault is counted as what it imitates, next to FAULT_INJECTED.
func TestFaultInjectionImitatesItsOutcome(t *testing.T) {
	for _, tc := range []struct {
		fault string
		want  []metrics.EventType
		ft    FailureType // without fallback
	}{
		{"ERROR", ev(metrics.Failure, metrics.FallbackSuccess, metrics.FaultInjected), CommandException},
		{"PANIC", ev(metrics.Failure, metrics.FallbackSuccess, metrics.FaultInjected), CommandException},
		{"SHORT_CIRCUITED", ev(metrics.ShortCircuited, metrics.FallbackSuccess, metrics.FaultInjected), ShortCircuit},
		{"SEMAPHORE_REJECTED", ev(metrics.SemaphoreRejected, metrics.FallbackSuccess, metrics.FaultInjected), RejectedSemaphoreExecution},
		{"THREAD_POOL_REJECTED", ev(metrics.ThreadPoolRejected, metrics.FallbackSuccess, metrics.FaultInjected), RejectedThreadExecution},
		{"RATE_LIMITED", ev(metrics.FallbackSuccess, metrics.RateLimited, metrics.FaultInjected), RateLimited},
		{"BAD_REQUEST", ev(metrics.BadRequest, metrics.FaultInjected), 0},
	} {
		for _, iso := range []string{"SEMAPHORE", "THREAD"} {
			t.Run(tc.fault+"/"+iso, func(t *testing.T) {
				e := newEnv(t)
				s := e.faulty("F", tc.fault, "execution.isolation.strategy", iso, "circuitBreaker.requestVolumeThreshold", "1000")
				ran := false
				run := func(context.Context) (string, error) { ran = true; return "v", nil }
				cmd := New(s, run).WithFallback(fallbackValue("fb"))
				got, err := cmd.Execute(context.Background())
				assert.Equal(t, tc.want, cmd.ExecutionEvents())
				assert.False(t, ran, "run is not called")
				if tc.ft == 0 {
					var fe *faultError
					require.ErrorAs(t, err, &fe)
					assert.Equal(t, "command: injected fault BAD_REQUEST", fe.Error())
				} else {
					require.NoError(t, err)
					assert.Equal(t, "fb", got)
					_, err = New(s, run).Execute(context.Background())
					runtimeErr(t, err, tc.ft)
					var fe *faultError
					require.ErrorAs(t, err, &fe, "the cause says it was injected")
					if tc.fault == "PANIC" {
						var pe *PanicError
						require.ErrorAs(t, err, &pe)
					}
				}
				if iso == "THREAD" {
					e.waitPoolIdle("F")
				}
				e.assertIdle("F")
			})
		}
	}
}

// timerClock is a fake clock that tells, on timers, the duration of each timer made with
// NewTimer (the fault's delay; deadlines and the metrics use AfterFunc).
type timerClock struct {
	*clock.Fake
	timers chan time.Duration
}

func (c timerClock) NewTimer(d time.Duration) clock.Timer {
	t := c.Fake.NewTimer(d)
	c.timers <- d
	return t
}

// A latency fault delays run, on the runtime's clock; beyond the timeout it is a TIMEOUT.
func TestFaultInjectionLatency(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			clk := timerClock{Fake: e.clk, timers: make(chan time.Duration, 1)}
			rt := NewRuntime(WithClock(clk), WithConfig(e.rt.Config()))
			defer rt.Close()
			s := e.faulty("L", "LATENCY", "execution.isolation.strategy", iso,
				"faultInjection.latencyInMilliseconds", "50", "execution.isolation.thread.timeoutInMilliseconds", "80")
			s.Runtime = rt
			cmd := New(s, value("v"))
			done := make(chan error)
			go func() {
				_, err := cmd.Execute(context.Background())
				done <- err
			}()
			require.Equal(t, 50*time.Millisecond, <-clk.timers)
			e.clk.Advance(50 * time.Millisecond)
			require.NoError(t, <-done)
			assert.Equal(t, ev(metrics.Success, metrics.FaultInjected), cmd.ExecutionEvents())
			assert.Equal(t, 50*time.Millisecond, cmd.ExecutionTime(), "the delay is the run's latency")

			e.src.Set("hystrix.command.L.faultInjection.latencyInMilliseconds", "500")
			cmd = New(s, value("v"))
			go func() {
				_, err := cmd.Execute(context.Background())
				done <- err
			}()
			require.Equal(t, 500*time.Millisecond, <-clk.timers)
			e.clk.Advance(80 * time.Millisecond)
			runtimeErr(t, <-done, Timeout)
			assert.Equal(t, ev(metrics.Timeout, metrics.FallbackMissing, metrics.FaultInjected), cmd.ExecutionEvents())
			if iso == "THREAD" {
				ks := rt.lookup("L")
				require.Eventually(t, func() bool { return ks.pool.Load().m.CurrentActive() == 0 }, 5*time.Second, time.Millisecond)
			}
		})
	}
}

// A hang lasts until the run's context ends: the timeout, or the caller leaving.
func TestFaultInjectionHang(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			s := e.faulty("H", "HANG", "execution.isolation.strategy", iso,
				"execution.isolation.thread.timeoutInMilliseconds", "100")
			timers := e.clk.Pending()
			cmd := New(s, value("v")).WithFallback(fallbackValue("fb"))
			done := make(chan error)
			go func() {
				_, err := cmd.Execute(context.Background())
				done <- err
			}()
			e.clk.BlockUntil(timers + 1)
			e.clk.Advance(100 * time.Millisecond)
			require.NoError(t, <-done)
			assert.Equal(t, ev(metrics.Timeout, metrics.FallbackSuccess, metrics.FaultInjected), cmd.ExecutionEvents())

			ctx, cancel := context.WithCancel(context.Background())
			cmd = New(s, value("v"))
			timers = e.clk.Pending()
			go func() {
				_, err := cmd.Execute(ctx)
				done <- err
			}()
			e.clk.BlockUntil(timers + 1)
			cancel()
			assert.ErrorIs(t, <-done, context.Canceled)
			assert.Equal(t, ev(metrics.Cancelled, metrics.FaultInjected), cmd.ExecutionEvents())
			if iso == "THREAD" {
				e.waitPoolIdle("H")
			}
			e.assertIdle("H")
			e.assertNoDeadlines("H")
		})
	}
}

// countInjected runs n executions of a key injecting at pct % and returns how many were
// picked.
func countInjected(t *testing.T, rt *Runtime, key, pct string, n int) int {
	s := Setter{Runtime: rt, CommandKey: key, Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "circuitBreaker.enabled": "false",
		"faultInjection.enabled": "true", "faultInjection.percentage": pct}}
	injected := 0
	for range n {
		cmd := New(s, value("v")).WithFallback(fallbackValue("fb"))
		if _, err := cmd.Execute(context.Background()); err != nil {
			t.Fatal(err)
		}
		if cmd.IsFailedExecution() {
			injected++
		}
	}
	return injected
}

// Acceptance: 1 % of 100,000 calls is 1,000 +- 100 injected. With a seeded source the
// count is the same every run.
func TestFaultInjectionRateSeeded(t *testing.T) {
	count := func() int {
		var mu sync.Mutex
		src := rand.New(rand.NewPCG(1, 2))
		rt := NewRuntime(WithClock(clock.NewFake(epoch)), WithConfig(config.NewStore()), withRandom(func() uint64 {
			mu.Lock()
			defer mu.Unlock()
			return src.Uint64()
		}))
		defer rt.Close()
		return countInjected(t, rt, "Seeded", "1", 100_000)
	}
	first := count()
	t.Logf("seeded: %d of 100,000 injected at 1 %%", first)
	assert.InDelta(t, 1000, first, 100)
	assert.Equal(t, first, count(), "the same seed picks the same executions")
}

// The same with the default source: a binomial(100,000, 1 %) count, 1,000 +- 31.5 (one
// standard deviation): outside 1,000 +- 100 about once in 600 runs, by chance.
func TestFaultInjectionRateStatistical(t *testing.T) {
	rt := NewRuntime(WithClock(clock.NewFake(epoch)), WithConfig(config.NewStore()))
	defer rt.Close()
	n := countInjected(t, rt, "Random", "1", 100_000)
	t.Logf("%d of 100,000 injected at 1 %%", n)
	assert.InDelta(t, 1000, n, 100)
}

// Switched off live, the stage leaves the key's chain.
func TestFaultInjectionIsSwitchedLive(t *testing.T) {
	e := newEnv(t)
	s := e.faulty("Live", "ERROR")
	inChain := func() bool {
		for l := e.key("Live").currentChain(); l != nil; l = l.next {
			if _, ok := l.step.(faultInjection); ok {
				return true
			}
		}
		return false
	}
	_, err := New(s, value("v")).Execute(context.Background())
	var fe *faultError
	require.ErrorAs(t, err, &fe)
	assert.True(t, inChain())
	e.src.Set("hystrix.command.Live.faultInjection.enabled", "false")
	_, err = New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.False(t, inChain(), "off: out of the chain")
	e.src.Set("hystrix.command.Live.faultInjection.enabled", "true")
	e.src.Set("hystrix.command.Live.faultInjection.percentage", "0")
	assert.False(t, errors.As(func() error { _, err := New(s, value("v")).Execute(context.Background()); return err }(), &fe))
	assert.False(t, inChain(), "0 %: out of the chain")
}
