package command

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/metrics"
	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// limited returns a Setter of key with the rate limiter on at perSec and burst.
func (e *env) limited(key, perSec, burst string, kv ...string) Setter {
	return e.setter(key, append([]string{"rateLimit.enabled", "true", "rateLimit.permitsPerSecond", perSec,
		"rateLimit.burst", burst}, kv...)...)
}

func TestRateLimiterRefusesBeyondItsBurst(t *testing.T) {
	e := newEnv(t)
	s := e.limited("RL", "10", "5")
	for range 5 {
		cmd := New(s, value("v"))
		_, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	}
	var fellBackWith error
	cmd := New(s, value("v")).WithFallback(func(_ context.Context, err error) (string, error) {
		fellBackWith = err
		return "fb", nil
	})
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "fb", got, "a refusal falls back, as a rejection does")
	assert.Equal(t, ev(metrics.FallbackSuccess, metrics.RateLimited), cmd.ExecutionEvents())
	var rl *RateLimitError
	require.ErrorAs(t, fellBackWith, &rl)
	assert.Equal(t, &RateLimitError{Group: "RL", RetryAfter: 100 * time.Millisecond, reason: reasonNoPermit}, rl)
	assert.ErrorIs(t, fellBackWith, ErrRateLimited)

	e.clk.Advance(30 * time.Millisecond)
	cmd = New(s, value("v"))
	_, err = cmd.Execute(context.Background())
	re := runtimeErr(t, err, RateLimited)
	assert.ErrorIs(t, err, ErrRateLimited)
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 70*time.Millisecond, rl.RetryAfter, "Retry-After: when the next permit is free")
	assert.Equal(t, "RL was rate limited and no fallback available (cause: command: rate limited (group RL, "+
		"no permit within maxWait, retry after 70ms))", re.Error())
	assert.Equal(t, ev(metrics.FallbackMissing, metrics.RateLimited), cmd.ExecutionEvents())

	e.clk.Advance(time.Second)
	e.rt.Metrics().Flush()
	m := e.key("RL").metrics
	assert.Equal(t, int64(2), m.CumulativeCount(metrics.RateLimited))
	assert.Equal(t, int64(5), m.LiveHealthCounts().TotalRequests, "refusals are neutral to health")
	assert.Zero(t, m.LiveHealthCounts().ErrorCount)
	e.assertIdle("RL")
}

// Acceptance: 300 a second over 10 s with 1,000 a second offered admits 3,000 within 2 %.
func TestRateLimiterAdmitsItsRate(t *testing.T) {
	e := newEnv(t)
	s := e.limited("Rate", "300", "10")
	admitted := 0
	for range 10_000 {
		if _, err := New(s, value("v")).Execute(context.Background()); err == nil {
			admitted++
		} else {
			require.ErrorIs(t, err, ErrRateLimited)
		}
		e.clk.Advance(time.Millisecond)
	}
	t.Logf("admitted %d of 10,000 offered over 10 s at 300/s", admitted)
	assert.InEpsilon(t, 3000, admitted, 0.02)
	assert.Equal(t, 3000+10-1, admitted, "the rate, plus the burst's credit at the start")
}

// The same with the system clock, for a short while, callers flat out: what the limiter
// admits follows the real time elapsed. The burst (a third of a second of permits) keeps
// the permits of a moment when a busy machine runs none of the callers; a longer moment
// (a machine shared with other tests can stall every caller for more) loses the permits
// beyond the burst, and the test, which sees each such gap between two calls, expects
// those fewer.
func TestRateLimiterAdmitsItsRateOnTheSystemClock(t *testing.T) {
	rt := NewRuntime()
	defer rt.Close()
	const rate, burst = 300, 100
	s := Setter{Runtime: rt, CommandKey: "RealRate", Properties: map[string]string{
		"execution.isolation.strategy": "SEMAPHORE", "execution.isolation.semaphore.maxConcurrentRequests": "100",
		"rateLimit.enabled": "true", "rateLimit.permitsPerSecond": "300", "rateLimit.burst": "100",
		"circuitBreaker.enabled": "false"}}
	kept := time.Duration(burst) * time.Second / rate // how long a stall the burst covers
	var admitted, lastCall, lost atomic.Int64
	start := time.Now()
	stop := start.Add(time.Second)
	lastCall.Store(start.UnixNano())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for now := time.Now(); now.Before(stop); now = time.Now() {
				if gap := time.Duration(now.UnixNano() - lastCall.Swap(now.UnixNano())); gap > kept {
					lost.Add(int64(gap - kept))
				}
				if _, err := New(s, value("v")).Execute(context.Background()); err == nil {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	want := rate*elapsed.Seconds() + burst
	offered := rate*(elapsed-time.Duration(lost.Load())).Seconds() + burst
	t.Logf("admitted %d in %v, want about %.0f (%.0f after stalls of every caller)", admitted.Load(), elapsed, want, offered)
	assert.LessOrEqual(t, float64(admitted.Load()), want+1, "never above the rate and the burst")
	assert.GreaterOrEqual(t, float64(admitted.Load()), 0.95*offered, "and close to it while callers offer calls")
}

// Callers racing for a permit at one instant get exactly the burst.
func TestRateLimiterIsExactUnderContention(t *testing.T) {
	e := newEnv(t)
	s := e.limited("Race", "1", "50", "execution.isolation.semaphore.maxConcurrentRequests", "1000",
		"circuitBreaker.enabled", "false")
	for round := range 5 {
		var admitted, limited atomic.Int64
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 100 {
					_, err := New(s, value("v")).Execute(context.Background())
					switch {
					case err == nil:
						admitted.Add(1)
					case errors.Is(err, ErrRateLimited):
						limited.Add(1)
					default:
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		require.EqualValues(t, 50, admitted.Load(), "round %d", round)
		require.EqualValues(t, 750, limited.Load(), "round %d", round)
		e.clk.Advance(time.Minute) // a full bucket again
	}
	e.assertIdle("Race")
}

func TestRateLimiterGroupSharesOneLimiter(t *testing.T) {
	e := newEnv(t)
	a := e.limited("GA", "10", "4", "rateLimit.group", "shared")
	b := e.limited("GB", "10", "4", "rateLimit.group", "shared")
	other := e.limited("GC", "10", "4") // its own group: its key
	admitted := map[string]int{}
	for range 4 {
		for _, s := range []Setter{a, b, other} {
			if _, err := New(s, value("v")).Execute(context.Background()); err == nil {
				admitted[s.CommandKey]++
			}
		}
	}
	assert.Equal(t, map[string]int{"GA": 2, "GB": 2, "GC": 4}, admitted)
}

func TestRateLimiterWaitsUpToItsBound(t *testing.T) {
	e := newEnv(t)
	s := e.limited("Wait", "10", "1", "rateLimit.maxWaitInMilliseconds", "150")
	_, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	timers := e.clk.Pending() // the metrics' own

	done := make(chan error)
	cmd := New(s, value("v"))
	go func() {
		_, err := cmd.Execute(context.Background())
		done <- err
	}()
	e.clk.BlockUntil(timers + 1) // it waits for the permit 100 ms away
	_, err = New(s, value("v")).Execute(context.Background())
	var rl *RateLimitError
	require.ErrorAs(t, err, &rl, "the next is 200 ms away: beyond the bound")
	assert.Equal(t, 200*time.Millisecond, rl.RetryAfter)
	e.clk.Advance(99 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("returned before its permit: %v", err)
	default:
	}
	e.clk.Advance(time.Millisecond)
	require.NoError(t, <-done)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	e.assertIdle("Wait")
}

// A caller that leaves while waiting ends CANCELLED at once, gives its permit back and
// leaves no timer or goroutine behind; Queue returns before the wait is over.
func TestRateLimiterWaitEndsWithTheCaller(t *testing.T) {
	e := newEnv(t)
	s := e.limited("Leave", "10", "1", "rateLimit.maxWaitInMilliseconds", "500")
	_, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	timers := e.clk.Pending() // the metrics' own

	ctx, cancel := context.WithCancel(context.Background())
	cmd := New(s, value("v"))
	f, err := cmd.Queue(ctx)
	require.NoError(t, err)
	e.clk.BlockUntil(timers + 1)
	cancel()
	_, err = f.Get(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, ev(metrics.Cancelled), cmd.ExecutionEvents())
	assert.Equal(t, timers, e.clk.Pending(), "its timer is stopped")

	// the permit it gave back is the next one: 100 ms after the first, not 200
	wait, ok := limiterIn(e.key("Leave").currentChain()).l.Reserve(e.clk.Since(e.rt.base), 0)
	assert.False(t, ok)
	assert.Equal(t, 100*time.Millisecond, wait)
	e.assertIdle("Leave")
}

func TestRateLimiterWaitIsBoundedByTheTimeout(t *testing.T) {
	e := newEnv(t)
	s := e.limited("Slow", "0.5", "1", "rateLimit.maxWaitInMilliseconds", "10000",
		"execution.isolation.thread.timeoutInMilliseconds", "1000")
	_, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	_, err = New(s, value("v")).Execute(context.Background())
	var rl *RateLimitError
	require.ErrorAs(t, err, &rl, "the permit 2 s away is beyond the 1 s timeout: refused at once")
	assert.Equal(t, reasonAfterTimeout, rl.reason)
	assert.Equal(t, 2*time.Second, rl.RetryAfter)
}

// The stage follows the properties live: off, a key's chain has no limiter.
func TestRateLimiterIsSwitchedLive(t *testing.T) {
	e := newEnv(t)
	s := e.setter("Live", "rateLimit.permitsPerSecond", "1", "rateLimit.burst", "1")
	inChain := func() bool { return limiterIn(e.key("Live").currentChain()) != nil }
	execute := func() error { _, err := New(s, value("v")).Execute(context.Background()); return err }
	for range 3 {
		require.NoError(t, execute())
	}
	assert.False(t, inChain())
	e.src.Set("hystrix.command.Live.rateLimit.enabled", "true")
	require.NoError(t, execute())
	assert.ErrorIs(t, execute(), ErrRateLimited)
	assert.True(t, inChain())
	e.src.Set("hystrix.command.Live.rateLimit.maxWaitInMilliseconds", "10")
	assert.True(t, e.key("Live").currentChain().waits, "with a wait: the waiting stage")
	e.src.Set("hystrix.command.Live.rateLimit.enabled", "false")
	require.NoError(t, execute())
	assert.False(t, inChain())
}

// A limiter made by the runtime's factory (a fleet-wide share, say) is what the stage asks;
// a factory that fails leaves the key unlimited and says so.
func TestRateLimiterFactory(t *testing.T) {
	var made []string
	deny := &denyAll{retry: time.Second}
	rt := NewRuntime(WithClock(clock.NewFake(epoch)), WithRateLimiters(func(group string, r ratelimit.Rate) (ratelimit.Limiter, error) {
		made = append(made, group)
		if group == "broken" {
			return nil, errors.New("no store")
		}
		return deny, nil
	}))
	defer rt.Close()
	s := Setter{Runtime: rt, CommandKey: "F", Properties: map[string]string{"execution.isolation.strategy": "SEMAPHORE",
		"rateLimit.enabled": "true"}}
	_, err := New(s, value("v")).Execute(context.Background())
	var rl *RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, time.Second, rl.RetryAfter)
	s.CommandKey, s.Properties["rateLimit.group"] = "B", "broken"
	_, err = New(s, value("v")).Execute(context.Background())
	assert.NoError(t, err, "fails open")
	assert.Equal(t, []string{"F", "broken"}, made)
	rt.Close()
	assert.True(t, deny.closed, "a limiter that is an io.Closer is closed with the runtime")
}

// limiterIn returns the rate limiter stage of a chain, nil if it has none.
func limiterIn(c *link) *rateLimit {
	for l := c; l != nil; l = l.next {
		switch s := l.step.(type) {
		case rateLimit:
			return &s
		case rateLimitWaiting:
			return &s.rateLimit
		}
	}
	return nil
}

type denyAll struct {
	retry  time.Duration
	closed bool
}

func (d *denyAll) Reserve(_, _ time.Duration) (time.Duration, bool) { return d.retry, false }
func (d *denyAll) Cancel(time.Duration)                             {}
func (d *denyAll) Close() error                                     { d.closed = true; return nil }
