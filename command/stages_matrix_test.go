package command

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// matrixStage is a stage, or stages together, that a key of the matrix uses.
type matrixStage struct {
	name   string
	props  []string
	cached bool // two executions of one cache key in a request context: the second a hit
}

var matrixStages = []matrixStage{
	{name: "plain"},
	{name: "retry", props: []string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "1"}},
	{name: "hedge", props: []string{"hedge.maxHedges", "2", "hedge.delayInMilliseconds", "1"}},
	{name: "retry+hedge", props: []string{"retry.maxAttempts", "2", "retry.backoffInMilliseconds", "1",
		"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "1"}},
	{name: "retry, no budget left", props: []string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "1",
		"budget.percent", "0", "budget.minPerSecond", "0"}},
	{name: "retry, rate limit", props: []string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "1",
		"rateLimit.enabled", "true", "rateLimit.permitsPerSecond", "0.001", "rateLimit.burst", "1"}},
	{name: "hedge, fault", props: []string{"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "1",
		"faultInjection.enabled", "true", "faultInjection.percentage", "50"}},
	{name: "retry, latency fault", props: []string{"retry.maxAttempts", "2", "retry.backoffInMilliseconds", "1",
		"faultInjection.enabled", "true", "faultInjection.percentage", "100", "faultInjection.fault", "LATENCY",
		"faultInjection.latencyInMilliseconds", "2"}},
	{name: "cache, retry", props: []string{"retry.maxAttempts", "2", "retry.backoffInMilliseconds", "1"}, cached: true},
}

// matrixRun is how the dependency answers: its n-th call (from 1) fails when fails says so.
type matrixRun struct {
	name  string
	fails func(n int32) bool
}

var matrixRuns = []matrixRun{
	{name: "up", fails: func(int32) bool { return false }},
	{name: "fails once", fails: func(n int32) bool { return n == 1 }},
	{name: "down", fails: func(int32) bool { return true }},
}

// matrixDoor executes c (nil for the Kind door, which runs run on kind) in ctx.
type matrixDoor struct {
	name string
	call func(t *testing.T, ctx context.Context, c *Command[string], kind *Kind[string],
		run func(context.Context) (string, error)) (string, error)
}

func matrixDoors() []matrixDoor {
	one := func(t *testing.T, obs rxgo.Observable) (string, error) {
		values, err := drain(t, obs)
		if err != nil {
			return "", err
		}
		require.Len(t, values, 1)
		return values[0], nil
	}
	return []matrixDoor{
		{"Execute", func(_ *testing.T, ctx context.Context, c *Command[string], _ *Kind[string], _ func(context.Context) (string, error)) (string, error) {
			return c.Execute(ctx)
		}},
		{"Queue", func(_ *testing.T, ctx context.Context, c *Command[string], _ *Kind[string], _ func(context.Context) (string, error)) (string, error) {
			f, err := c.Queue(ctx)
			if err != nil {
				return "", err
			}
			return f.Get(context.Background())
		}},
		{"Observe", func(t *testing.T, ctx context.Context, c *Command[string], _ *Kind[string], _ func(context.Context) (string, error)) (string, error) {
			return one(t, c.Observe(ctx))
		}},
		{"ToObservable", func(t *testing.T, ctx context.Context, c *Command[string], _ *Kind[string], _ func(context.Context) (string, error)) (string, error) {
			values, err := []string(nil), error(nil)
			for it := range c.ToObservable().Observe(rxgo.WithContext(ctx)) {
				if it.Error() {
					err = it.E
					continue
				}
				values = append(values, it.V.(string))
			}
			if err != nil {
				return "", err
			}
			require.Len(t, values, 1)
			return values[0], nil
		}},
		{"Kind.ExecutePooled", func(_ *testing.T, ctx context.Context, _ *Command[string], k *Kind[string], run func(context.Context) (string, error)) (string, error) {
			return k.ExecutePooled(ctx, run)
		}},
	}
}

// attemptOutcomes are the events of which every attempt records exactly one.
var attemptOutcomes = []metrics.EventType{metrics.Success, metrics.Failure, metrics.Timeout, metrics.Cancelled,
	metrics.ShortCircuited, metrics.SemaphoreRejected, metrics.ThreadPoolRejected, metrics.AdaptiveRejected,
	metrics.RateLimited}

// Every door x isolation x breaker x stages x dependency: the caller gets the run's value
// when an attempt succeeded and the fallback's when none did; the command has one
// terminal event; every attempt (the first, each RETRY, each HEDGE) has exactly one
// outcome in the key's counts; the health counts are what the event table makes of those
// counts; every permit (semaphore, pool, adaptive limit, concurrency) comes back.
// goleak (TestMain) checks that no goroutine is left.
func TestStagesMatrix(t *testing.T) {
	cases := 0
	for _, d := range matrixDoors() {
		for _, iso := range []string{"SEMAPHORE", "THREAD", "ADAPTIVE"} {
			for _, brk := range []string{"true", "false"} {
				for _, st := range matrixStages {
					if st.cached && d.name == "Kind.ExecutePooled" {
						continue // a Kind's executions have no cache key
					}
					for _, dep := range matrixRuns {
						cases++
						t.Run(d.name+"/"+iso+"/breaker="+brk+"/"+st.name+"/"+dep.name, func(t *testing.T) {
							testMatrixCase(t, d, iso, brk, st, dep)
						})
					}
				}
			}
		}
	}
	t.Logf("%d cases", cases)
}

func testMatrixCase(t *testing.T, d matrixDoor, iso, brk string, st matrixStage, dep matrixRun) {
	e := newEnv(t)
	props := append([]string{"execution.isolation.strategy", iso, "circuitBreaker.enabled", brk,
		"execution.isolation.thread.timeoutInMilliseconds", "60000", "requestCache.enabled", fmt.Sprint(st.cached)}, st.props...)
	s := e.setter("M", props...)
	s.ThreadPoolKey = "MPool"
	var calls atomic.Int32
	run := func(ctx context.Context) (string, error) {
		if dep.fails(calls.Add(1)) {
			return "", errBoom
		}
		return "v", nil
	}
	stop := e.clk.Run(time.Millisecond, 20*time.Microsecond) // the hedges' and backoffs' timers fire
	defer stop()
	ctx := context.Background()
	if st.cached {
		ctx = requestContext(t)
	}
	kind, err := Define[string](s)
	require.NoError(t, err)
	kind = kind.WithFallback(fallbackValue("fb"))
	var cmds []*Command[string]
	var got []string
	for range map[bool]int{false: 1, true: 2}[st.cached] {
		var c *Command[string]
		if d.name != "Kind.ExecutePooled" {
			c = New(s, run).WithFallback(fallbackValue("fb"))
			if st.cached {
				c.WithCacheKey("same")
			}
			cmds = append(cmds, c)
		}
		v, err := d.call(t, ctx, c, kind, run)
		require.NoError(t, err, "the fallback answers whatever failed")
		got = append(got, v)
	}
	stop()
	e.waitMatrixIdle("M")
	counted := append(attemptOutcomes, metrics.Retry, metrics.Hedge, metrics.ResponseFromCache)
	var counts []int64
	n := func(ev metrics.EventType) int64 { return counts[slices.Index(counted, ev)] }
	outcomes := func() (sum int64) {
		for _, ev := range attemptOutcomes {
			sum += n(ev)
		}
		return sum
	}
	counts = e.counts("M", counted...) // every attempt counted itself: waitMatrixIdle waited for the hedge's
	for i, v := range got {
		if n(metrics.Success) > 0 {
			assert.Equal(t, "v", v, "execution %d: an attempt succeeded", i)
		} else {
			assert.Equal(t, "fb", v, "execution %d: no attempt succeeded", i)
		}
	}
	for i, c := range cmds {
		terminal := 0
		for _, ev := range c.ExecutionEvents() {
			if ev.IsTerminal() && ev != metrics.ResponseFromCache {
				terminal++
			}
		}
		assert.Equal(t, 1, terminal, "execution %d: one terminal event in %v", i, c.ExecutionEvents())
		assert.True(t, c.IsExecutionComplete())
	}
	if st.cached {
		assert.True(t, cmds[1].IsResponseFromCache(), "the second execution is a hit")
		assert.Equal(t, int64(1), n(metrics.ResponseFromCache))
	}
	assert.Equal(t, 1+n(metrics.Retry)+n(metrics.Hedge), outcomes(), "one outcome per attempt: %v", counts)
	assert.LessOrEqual(t, int64(calls.Load()), outcomes(), "run is called at most once per attempt")

	e.tick(time.Second)
	var total, errs int64
	for i, ev := range attemptOutcomes {
		switch ev.Health() {
		case metrics.Healthy:
			total += counts[i]
		case metrics.Unhealthy:
			total += counts[i]
			errs += counts[i]
		}
	}
	h := e.key("M").metrics.HealthCounts()
	assert.Equal(t, total, h.TotalRequests, "health counts every attempt the event table says")
	assert.Equal(t, errs, h.ErrorCount)
}

// waitMatrixIdle waits until everything key holds was given back: the attempts a hedge
// abandoned end (take and give back their permits, count themselves) on their own
// goroutines, which the runtime counts (detached).
func (e *env) waitMatrixIdle(key string) {
	e.t.Helper()
	ks := e.key(key)
	require.Eventually(e.t, func() bool {
		if e.rt.detached.Load() != 0 { // a hedge's loser may take its permit after the outcome
			return false
		}
		if ks.metrics.CurrentConcurrency() != 0 || ks.execPermits() != 0 || ks.fallbackSem.InUse() != 0 {
			return false
		}
		if b := ks.pool.Load(); b != nil && (b.m.CurrentActive() != 0 || b.p.Gauges().ActiveCount != 0) {
			return false
		}
		l := ks.adaptiveLimiter()
		return l == nil || l.Inflight() == 0 && l.Queued() == 0
	}, 5*time.Second, time.Millisecond)
	e.assertIdle(key)
}
