package breaker

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// env is a breaker Registry over a real metrics.Registry and config store on a fake clock.
type env struct {
	t       *testing.T
	src     *config.MemorySource
	store   *config.Store
	clk     *clock.Fake
	metrics *metrics.Registry
	r       *Registry
	events  chan Transition
}

func newEnv(t *testing.T, opts ...metrics.Option) *env {
	t.Helper()
	src := config.NewMemorySource()
	store := config.NewStore(src)
	clk := clock.NewFake(epoch)
	mr := metrics.NewRegistry(store, clk, opts...)
	r := NewRegistry(store, mr, clk, nil)
	e := &env{t: t, src: src, store: store, clk: clk, metrics: mr, r: r, events: make(chan Transition, 100)}
	cancel := r.OnStateChange(func(tr Transition) { e.events <- tr })
	t.Cleanup(func() {
		cancel()
		r.Close()
		mr.Close()
		store.Close()
	})
	return e
}

// advance moves the clock; every health snapshot due on the way is delivered inside
// Advance (the metrics registry rolls on the clock's timer).
func (e *env) advance(d time.Duration) {
	e.clk.Advance(d)
	e.metrics.Flush()
}

// attempt returns whether b lets a call through.
func attempt(b CircuitBreaker) bool {
	_, ok := b.Attempt()
	return ok
}

// trial starts the trial of b and returns its ticket.
func (e *env) trial(b CircuitBreaker) Ticket {
	e.t.Helper()
	tk, ok := b.Attempt()
	require.True(e.t, ok)
	require.Equal(e.t, HalfOpen, b.State())
	return tk
}

// complete publishes n completions with the given events for key.
func (e *env) complete(key string, n int, events ...metrics.EventType) {
	var res metrics.ExecutionResult
	for _, ev := range events {
		res = res.WithEvent(ev)
	}
	m := e.metrics.Command(key)
	for range n {
		m.MarkComplete(res)
	}
}

// next returns the next transition delivered to the listener.
func (e *env) next() Transition {
	e.t.Helper()
	select {
	case tr := <-e.events:
		return tr
	case <-time.After(5 * time.Second):
		e.t.Fatal("no transition delivered")
		return Transition{}
	}
}

func (e *env) noMoreTransitions() {
	e.t.Helper()
	e.metrics.Flush()
	select {
	case tr := <-e.events:
		e.t.Fatalf("unexpected transition %+v", tr)
	case <-time.After(20 * time.Millisecond):
	}
}

func TestEndToEndTripsFromPublishedCompletions(t *testing.T) {
	type batch struct {
		n      int
		events []metrics.EventType
	}
	F, S := metrics.Failure, metrics.Success
	fb := metrics.FallbackSuccess
	for _, tc := range []struct {
		name    string
		batches []batch
		reason  string // "" = must stay closed
	}{
		{"failures at the thresholds", []batch{{10, []metrics.EventType{F, fb}}, {10, []metrics.EventType{S}}},
			"error percentage 50% >= 50% over 20 requests"},
		{"timeouts", []batch{{20, []metrics.EventType{metrics.Timeout, fb}}},
			"error percentage 100% >= 50% over 20 requests"},
		{"thread-pool rejections", []batch{{15, []metrics.EventType{metrics.ThreadPoolRejected, fb}}, {5, []metrics.EventType{S}}},
			"error percentage 75% >= 50% over 20 requests"},
		{"semaphore rejections", []batch{{13, []metrics.EventType{metrics.SemaphoreRejected, metrics.FallbackRejection}}, {12, []metrics.EventType{S}}},
			"error percentage 52% >= 50% over 25 requests"},
		{"below volume", []batch{{19, []metrics.EventType{F, fb}}}, ""},
		{"below percentage", []batch{{9, []metrics.EventType{F}}, {11, []metrics.EventType{S}}}, ""},
		{"short circuits and bad requests do not count", []batch{
			{19, []metrics.EventType{F, fb}},
			{100, []metrics.EventType{metrics.ShortCircuited, fb}},
			{100, []metrics.EventType{metrics.BadRequest}},
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			b := e.r.Get("K", nil)
			for _, bt := range tc.batches {
				e.complete("K", bt.n, bt.events...)
			}
			e.advance(400 * time.Millisecond)
			assert.Equal(t, Closed, b.State(), "the snapshot in progress does not count")
			e.advance(100 * time.Millisecond)
			if tc.reason == "" {
				assert.Equal(t, Closed, b.State())
				assert.True(t, attempt(b))
				e.noMoreTransitions()
				return
			}
			assert.Equal(t, Open, b.State())
			assert.False(t, attempt(b))
			assert.Equal(t, Transition{Key: "K", From: Closed, To: Open, Reason: tc.reason,
				At: epoch.Add(500 * time.Millisecond)}, e.next())
		})
	}
}

func TestEndToEndTrialSuccessResetsHealthCounts(t *testing.T) {
	e := newEnv(t)
	b := e.r.Get("K", nil)
	e.complete("K", 30, metrics.Failure)
	e.advance(500 * time.Millisecond)
	require.Equal(t, Open, b.State())

	e.advance(5 * time.Second)
	e.complete("K", 50, metrics.ShortCircuited) // what a command reports while open
	trial := e.trial(b)
	e.complete("K", 1, metrics.Success)
	b.Report(trial, Success)
	assert.Equal(t, Closed, b.State())
	assert.Equal(t, metrics.HealthCounts{}, e.metrics.Command("K").HealthCounts(), "fresh window")

	// The 30 failures are still inside the 10 s rolling window; without the reset the
	// next snapshot would reopen the breaker.
	e.advance(2 * time.Second)
	assert.Equal(t, Closed, b.State())
	assert.Equal(t, metrics.HealthCounts{TotalRequests: 1}, e.metrics.Command("K").HealthCounts())

	for _, want := range []string{"error percentage 100% >= 50% over 30 requests", "sleep window elapsed: trial request", "trial succeeded"} {
		assert.Equal(t, want, e.next().Reason)
	}
	e.noMoreTransitions()
}

func TestListenerSeesEveryTransitionWithItsReason(t *testing.T) {
	e := newEnv(t)
	e.src.Set("hystrix.command.K.circuitBreaker.sleepWindowInMilliseconds", "1000")
	b := e.r.Get("K", nil)
	trip := func() {
		e.complete("K", 20, metrics.Timeout)
		e.advance(500 * time.Millisecond)
	}
	trial := func() Ticket {
		e.advance(time.Second)
		return e.trial(b)
	}

	trip()
	b.Report(trial(), Failure)
	b.Report(trial(), Cancelled)
	b.Report(trial(), BadRequest)
	e.trial(b)
	e.advance(time.Second) // the trial never reports back
	b.Report(e.trial(b), Success)
	trip()
	b.Reset()

	type step struct {
		from, to State
		reason   string
	}
	for i, want := range []step{
		{Closed, Open, "error percentage 100% >= 50% over 20 requests"},
		{Open, HalfOpen, "sleep window elapsed: trial request"},
		{HalfOpen, Open, "trial failed"},
		{Open, HalfOpen, "sleep window elapsed: trial request"},
		{HalfOpen, Open, "trial cancelled"},
		{Open, HalfOpen, "sleep window elapsed: trial request"},
		{HalfOpen, Open, "trial released without a verdict (bad request)"},
		{Open, HalfOpen, "previous trial ended without a verdict: trial request"},
		{HalfOpen, Open, "trial abandoned: no verdict within the sleep window (1s)"},
		{Open, HalfOpen, "previous trial ended without a verdict: trial request"},
		{HalfOpen, Closed, "trial succeeded"},
		{Closed, Open, "error percentage 100% >= 50% over 20 requests"},
		{Open, Closed, "reset by operator"},
	} {
		got := e.next()
		assert.Equal(t, "K", got.Key)
		assert.Equal(t, want, step{got.From, got.To, got.Reason}, "transition %d", i)
	}
	e.noMoreTransitions()
}

func TestSlowListenerDoesNotBlockTheMetricsGoroutineOrCallers(t *testing.T) {
	e := newEnv(t)
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	cancel := e.r.OnStateChange(func(Transition) {
		entered <- struct{}{}
		<-release
	})
	defer cancel()
	defer close(release)

	b := e.r.Get("K", nil)
	e.complete("K", 20, metrics.Failure)
	e.advance(500 * time.Millisecond) // Flush returns: the metrics roll is not stuck
	<-entered
	require.Equal(t, Open, b.State())
	e.advance(5 * time.Second)
	tk, ok := b.Attempt()
	require.True(t, ok, "callers are not stuck behind the listener either")
	b.Report(tk, Failure)
	assert.Equal(t, Open, b.State())
}

// TestEndToEndEvaluateOnFailure: with circuitBreaker.evaluateOnFailure the breaker opens
// at the failure that crosses the thresholds, counted exactly from the key's metrics,
// without waiting for a snapshot; by default it waits for the next snapshot.
func TestEndToEndEvaluateOnFailure(t *testing.T) {
	for _, opt := range []bool{false, true} {
		e := newEnv(t)
		e.src.Set("hystrix.command.K.circuitBreaker.evaluateOnFailure", strconv.FormatBool(opt))
		b := e.r.Get("K", nil)
		e.complete("K", 20, metrics.Success)
		e.advance(500 * time.Millisecond) // 20 successes in the closed window
		calls := 0
		for b.State() == Closed && calls < 100 {
			tk, ok := b.Attempt()
			require.True(t, ok)
			b.Report(tk, Failure) // reported first (the breaker stage), then recorded (terminal)
			e.complete("K", 1, metrics.Failure)
			calls++
		}
		if !opt {
			assert.Equal(t, 100, calls, "snapshots only: nothing opens between snapshots")
			e.advance(500 * time.Millisecond)
			assert.Equal(t, Open, b.State())
			continue
		}
		assert.Equal(t, 20, calls, "opens at the failure that reaches 50% of 40")
		assert.Equal(t, "error percentage 50% >= 50% over 40 requests, counted at a failure", e.next().Reason)
	}
}

func TestGetIsPerKeyAndStable(t *testing.T) {
	e := newEnv(t)
	cp, err := e.store.Command("A", config.Overrides{"circuitBreaker.forceOpen": "true"})
	require.NoError(t, err)

	var wg sync.WaitGroup
	got := make([]CircuitBreaker, 16)
	for i := range got {
		wg.Go(func() { got[i] = e.r.Get("A", cp) })
	}
	wg.Wait()
	for _, b := range got {
		assert.Same(t, got[0], b)
	}
	assert.False(t, attempt(got[0]), "uses the properties given on first Get")
	assert.NotSame(t, got[0], e.r.Get("B", nil))
	assert.True(t, attempt(e.r.Get("B", nil)))

	fresh := NewRegistry(e.store, e.metrics, e.clk, nil)
	defer fresh.Close()
	assert.NotSame(t, got[0], fresh.Get("A", nil), "registries are independent")

	assert.Equal(t, noOp(), e.r.Get("", nil), "no properties for an empty key: no-op breaker")
}

func TestDynamicPropertiesThroughTheStore(t *testing.T) {
	e := newEnv(t)
	b := e.r.Get("K", nil)
	set := func(short, v string) { e.src.Set("hystrix.command.K.circuitBreaker."+short, v) }

	set("forceOpen", "true")
	assert.False(t, attempt(b))
	set("forceClosed", "true")
	assert.False(t, attempt(b), "forceOpen beats forceClosed")
	set("forceOpen", "false")
	assert.True(t, attempt(b))
	set("forceClosed", "false")

	set("enabled", "false")
	e.complete("K", 100, metrics.Failure)
	e.advance(500 * time.Millisecond)
	assert.Equal(t, Closed, b.State(), "disabled never opens")
	assert.False(t, b.IsOpen())
	e.noMoreTransitions()

	set("enabled", "true")
	e.advance(500 * time.Millisecond) // the failures are still in the window
	assert.Equal(t, Open, b.State())
}

func TestEvictionDropsTheBreakerWithItsMetrics(t *testing.T) {
	e := newEnv(t, metrics.WithIdleTimeout(20*time.Second))
	old := e.r.Get("K", nil)
	e.complete("K", 20, metrics.Failure)
	e.advance(500 * time.Millisecond)
	require.Equal(t, Open, old.State())
	e.next()

	e.advance(40 * time.Second) // windows empty, then idle for the timeout
	fresh := e.r.Get("K", nil)
	assert.NotSame(t, old, fresh, "evicted with its metrics")
	assert.Equal(t, Closed, fresh.State())

	e.complete("K", 20, metrics.Failure)
	e.advance(500 * time.Millisecond)
	assert.Equal(t, Open, fresh.State(), "the fresh breaker listens to the fresh metrics")
	assert.Equal(t, "K", e.next().Key)
	e.noMoreTransitions()
}

func TestLookupNeverCreates(t *testing.T) {
	e := newEnv(t, metrics.WithIdleTimeout(20*time.Second))
	_, ok := e.r.Lookup("K")
	assert.False(t, ok)
	assert.Empty(t, e.metrics.Commands(), "no metrics made for the key either")

	b := e.r.Get("K", nil)
	got, ok := e.r.Lookup("K")
	require.True(t, ok)
	assert.Same(t, b, got)

	e.advance(40 * time.Second) // idle: evicted with its metrics
	_, ok = e.r.Lookup("K")
	assert.False(t, ok, "an evicted key is gone")
	assert.Empty(t, e.metrics.Commands())
}

// TestEvictionOfOldMetricsKeepsAFreshBreaker: an eviction that reaches the registry after
// the key came back with fresh metrics drops nothing.
func TestEvictionOfOldMetricsKeepsAFreshBreaker(t *testing.T) {
	e := newEnv(t)
	other := metrics.NewRegistry(e.store, e.clk)
	defer other.Close()
	b := e.r.Get("K", nil)
	e.r.evict(other.Command("K")) // metrics of the same key that this breaker does not listen to
	assert.Same(t, b, e.r.Get("K", nil))
	e.r.evict(e.metrics.Command("K"))
	assert.NotSame(t, b, e.r.Get("K", nil))
}

func TestCloseStopsHealthSubscriptions(t *testing.T) {
	e := newEnv(t)
	b := e.r.Get("K", nil)
	e.r.Close()
	e.r.Close()
	e.complete("K", 20, metrics.Failure)
	e.advance(500 * time.Millisecond)
	assert.Equal(t, Closed, b.State())
	assert.True(t, attempt(e.r.Get("L", nil)), "gates still work after Close")
}
