package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// throttleEnv is a runtime on a fake clock whose random draws are all 0 (a throttle with
// a probability above 0 refuses) and whose notifier records each execution's events.
type throttleEnv struct {
	t   *testing.T
	rt  *Runtime
	clk *clock.Fake
	n   *hooktest.RecordingNotifier
}

func newThrottleEnv(t *testing.T) *throttleEnv {
	clk := clock.NewFake(epoch)
	reg := hooks.NewRegistry()
	n := &hooktest.RecordingNotifier{}
	reg.SetEventNotifier(n)
	rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore(config.DefaultSource())), WithHooks(reg),
		withRandom(func() uint64 { return 0 }))
	t.Cleanup(func() {
		rt.Metrics().Flush()
		rt.Close()
	})
	return &throttleEnv{t: t, rt: rt, clk: clk, n: n}
}

// define defines key with throttling on (K 2, a 64 s window, 4 requests at least) and the
// properties given as name, value pairs; its fallback answers "fb".
func (e *throttleEnv) define(key string, kv ...string) *Kind[string] {
	props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE", "throttle.enabled": "true",
		"throttle.windowInMilliseconds": "64000", "throttle.minRequests": "4"}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	k, err := Define[string](Setter{Runtime: e.rt, CommandKey: key, Properties: props})
	require.NoError(e.t, err)
	return k.WithFallback(fallbackValue("fb"))
}

// run executes k with a run that fails with err (nil: succeeds) and returns the events
// the execution marked, in order, and whether run was called.
func (e *throttleEnv) run(k *Kind[string], err error) ([]metrics.EventType, bool) {
	before := len(e.n.Marks())
	called := false
	_, _ = k.ExecutePooled(context.Background(), func(context.Context) (string, error) {
		called = true
		return "v", err
	})
	var events []metrics.EventType
	for _, m := range e.n.Marks()[before:] {
		events = append(events, m.Event)
	}
	return events, called
}

var errDown = errors.New("down")

func TestThrottleRefusesAsTheDependencyStopsAccepting(t *testing.T) {
	e := newThrottleEnv(t)
	k := e.define("Thr")
	for range 4 {
		events, called := e.run(k, errDown)
		require.True(t, called)
		require.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), events)
	}
	// 4 requests, no accept: p = 4/5.
	events, called := e.run(k, nil)
	assert.False(t, called, "refused locally")
	assert.Equal(t, ev(metrics.Throttled, metrics.FallbackSuccess), events)

	_, err := e.define("ThrNoFallback").ExecutePooled(context.Background(), value("v"))
	require.NoError(t, err, "another key has a throttle of its own")
	k = k.WithFallback(nil)
	before := len(e.n.Marks())
	_, err = k.ExecutePooled(context.Background(), value("v"))
	re := runtimeErr(t, err, Throttled)
	assert.ErrorIs(t, err, ErrThrottled)
	assert.Equal(t, "Thr was throttled and no fallback available", re.Error())
	assert.Equal(t, []hooktest.Mark{{Event: metrics.Throttled, Key: "Thr"}, {Event: metrics.FallbackMissing, Key: "Thr"}}, e.n.Marks()[before:])

	assert.Equal(t, []int64{2, 4, 0}, cumulativeCounts(e.rt, e.clk, "Thr", metrics.Throttled, metrics.Failure, metrics.Success))
	assert.Equal(t, int64(4), e.rt.Metrics().Command("Thr").LiveHealthCounts().TotalRequests, "THROTTLED is neutral to health")
}

func TestThrottleLetsThroughWhileKTimesTheAcceptsOutweighTheRequests(t *testing.T) {
	e := newThrottleEnv(t)
	k := e.define("Accepts")
	for _, err := range []error{nil, nil, nil, nil, errDown, errDown, errDown, errDown} {
		_, called := e.run(k, err)
		require.True(t, called)
	}
	// 8 requests, 4 accepts: p = (8 - 2 x 4) / 9 = 0.
	_, called := e.run(k, errDown)
	assert.True(t, called)
	// 9 requests, 4 accepts: p = 1/10.
	events, called := e.run(k, nil)
	assert.False(t, called)
	assert.Equal(t, ev(metrics.Throttled, metrics.FallbackSuccess), events)
	_, called = e.run(k, nil)
	assert.False(t, called, "the refusal counted as a request: p = 2/11")

	e.clk.Advance(64 * time.Second)
	_, called = e.run(k, nil)
	assert.True(t, called, "the window aged out")
}

// Only what counts against health is a request the dependency did not accept: a bad
// request, a rate limit or a rejection by the throttle itself count as nothing.
func TestThrottleCountsWhatTheEventTableCountsForHealth(t *testing.T) {
	e := newThrottleEnv(t)
	k := e.define("Neutral", "rateLimit.enabled", "true", "rateLimit.permitsPerSecond", "1", "rateLimit.burst", "1")
	events, _ := e.run(k, nil)
	require.Equal(t, ev(metrics.Success), events)
	for range 10 {
		events, called := e.run(k, nil)
		require.False(t, called)
		require.Equal(t, ev(metrics.RateLimited, metrics.FallbackSuccess), events)
	}
	e.clk.Advance(time.Second)
	for range 10 {
		events, called := e.run(k, BadRequest(errDown))
		require.True(t, called)
		require.Equal(t, ev(metrics.BadRequest), events)
		e.clk.Advance(time.Second)
	}
	for range 3 {
		_, called := e.run(k, errDown)
		require.True(t, called)
		e.clk.Advance(time.Second)
	}
	// 4 requests, 1 accept: p = (4 - 2) / 5.
	events, called := e.run(k, nil)
	assert.False(t, called)
	assert.Equal(t, ev(metrics.Throttled, metrics.FallbackSuccess), events)
}

// The breaker's trial is never throttled: a recovered dependency is seen, and closes the
// breaker, however many failures the throttle's window holds.
func TestThrottleLetsTheBreakersTrialThrough(t *testing.T) {
	e := newThrottleEnv(t)
	k := e.define("Trial", "circuitBreaker.requestVolumeThreshold", "4", "circuitBreaker.sleepWindowInMilliseconds", "1000")
	for range 4 {
		e.run(k, errDown)
	}
	e.clk.Advance(time.Second) // a health snapshot: the breaker opens
	events, called := e.run(k, nil)
	require.False(t, called)
	require.Equal(t, ev(metrics.ShortCircuited, metrics.FallbackSuccess), events)
	e.clk.Advance(time.Second)
	events, called = e.run(k, nil)
	assert.True(t, called, "the trial runs although p = 4/5")
	assert.Equal(t, ev(metrics.Success), events)
	assert.Equal(t, breaker.Closed, e.rt.Breakers().Get("Trial", nil).State())
	events, called = e.run(k, nil)
	assert.False(t, called, "a closed breaker's calls are throttled again: p = (5 - 2) / 6")
	assert.Equal(t, ev(metrics.Throttled, metrics.FallbackSuccess), events)
}

// A key without throttling has no throttle stage; one with it has its own.
func TestThrottleIsAStageOfTheKeysThatUseItOnly(t *testing.T) {
	e := newThrottleEnv(t)
	throttles := func(k *Kind[string]) (n int) {
		for l := k.key.ks.Load().currentChain(); l != nil; l = l.next {
			if _, ok := l.step.(*throttleGate); ok {
				n++
			}
		}
		return n
	}
	off := e.define("Off", "throttle.enabled", "false")
	assert.Zero(t, throttles(off))
	plain, err := Define[string](Setter{Runtime: e.rt, CommandKey: "Plain",
		Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}})
	require.NoError(t, err)
	assert.Same(t, plain.key.ks.Load().currentChain(), off.key.ks.Load().currentChain(), "switched off, it costs nothing: the plain chain")
	shared := func() (n int) {
		e.rt.chains.Range(func(any, any) bool { n++; return true })
		return n
	}
	before := shared()
	on := e.define("On")
	on.key.ks.Load().currentChain() // a key's chain is picked on first use
	one := shared()
	assert.LessOrEqual(t, one-before, 1, "the links inside the throttle, shared by every throttled key like them")
	other := e.define("Other")
	assert.Equal(t, 1, throttles(on))
	assert.NotSame(t, on.key.ks.Load().currentChain(), other.key.ks.Load().currentChain(), "each key owns its throttle")
	assert.Equal(t, one, shared(), "a key's own links are not kept among the shared ones: they go with the key")
}

// BenchmarkThrottle: Kind.ExecutePooled on a key without throttling, on one whose throttle.*
// properties are set but switched off (its chain is the plain one), and on one with
// throttling on and a healthy dependency (an Allow and a Record, two clock reads more, no
// draw).
func BenchmarkThrottle(b *testing.B) {
	for _, c := range []struct {
		name  string
		props config.Overrides
	}{
		{"plain", nil},
		{"off", config.Overrides{"throttle.enabled": "false", "throttle.k": "3"}},
		{"on", config.Overrides{"throttle.enabled": "true"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			k, err := Define[int](stagesSetter(benchRuntime(b), c.name, c.props))
			require.NoError(b, err)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := k.ExecutePooled(ctx, benchRun); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A refusal on this side (the key's own semaphore full) never reached the dependency: it
// is no request the dependency did not accept, so a saturated key is never throttled for
// it, however many it refuses.
func TestThrottleDoesNotCountRefusalsOfItsOwnSide(t *testing.T) {
	e := newThrottleEnv(t)
	k := e.define("Own", "execution.isolation.semaphore.maxConcurrentRequests", "1")
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = k.ExecutePooled(context.Background(), func(context.Context) (string, error) {
			close(entered)
			<-release
			return "v", nil
		})
	}()
	<-entered
	for range 50 {
		events, called := e.run(k, nil)
		require.False(t, called)
		require.Equal(t, ev(metrics.SemaphoreRejected, metrics.FallbackSuccess), events)
	}
	close(release)
	<-done
}
