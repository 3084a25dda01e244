package telemetry

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var epoch = time.Unix(1_000_000, 0)

// env is a runtime on a fake clock with a Reader whose labels are "name=value" pairs, the
// number of label sets it made, and a channel that gets every breaker transition after
// the Reader has counted it (listeners are called in the order they registered).
type env struct {
	t     *testing.T
	rt    *command.Runtime
	clk   *clock.Fake
	r     *Reader[[]string]
	made  atomic.Int64
	trans chan breaker.Transition
}

func newEnv(t *testing.T, opts ...command.Option) *env {
	clk := clock.NewFake(epoch)
	store := config.NewStore()
	rt := command.NewRuntime(append([]command.Option{command.WithClock(clk), command.WithConfig(store)}, opts...)...)
	e := &env{t: t, rt: rt, clk: clk, trans: make(chan breaker.Transition, 10)}
	e.r = NewReader(rt, e.labels)
	cancel := rt.Breakers().OnStateChange(func(tr breaker.Transition) { e.trans <- tr })
	t.Cleanup(func() {
		cancel()
		e.r.Close()
		rt.Metrics().Flush()
		rt.Close()
		store.Close()
	})
	return e
}

// advance moves the clock in steps of the metrics resolution, rolling every bucket.
func (e *env) advance(d time.Duration) {
	for ; d > 0; d -= 100 * time.Millisecond {
		e.clk.Advance(100 * time.Millisecond)
		e.rt.Metrics().Flush()
	}
}

// run executes a command of key that takes d on the fake clock and returns err.
func (e *env) run(key string, isolation string, d time.Duration, err error) {
	cmd := command.New(command.Setter{Runtime: e.rt, CommandKey: key, GroupKey: "G",
		Properties: config.Overrides{"execution.isolation.strategy": isolation}},
		func(context.Context) (string, error) {
			e.clk.Advance(d)
			return "v", err
		}).WithFallback(func(context.Context, error) (string, error) { return "fb", nil })
	_, _ = cmd.Execute(context.Background())
}

// labels makes a label set as "name=value" pairs, checking that it extends base.
func (e *env) labels(base []string, names, values []string) []string {
	e.made.Add(1)
	require.Len(e.t, values, len(names))
	pairs := make([]string, len(names))
	for i, n := range names {
		pairs[i] = n + "=" + values[i]
	}
	if base != nil {
		assert.Equal(e.t, base, pairs[:len(base)], "the entity's own labels come first")
	}
	return pairs
}

// read returns every sample as "name{label=value,...}" -> value.
func (e *env) read() map[string]float64 {
	got := map[string]float64{}
	e.r.Read(func(metric int, pairs []string, v float64) {
		m := Catalogue[metric]
		require.Len(e.t, pairs, len(m.Labels), m.Name)
		for i, p := range pairs {
			require.True(e.t, strings.HasPrefix(p, m.Labels[i]+"="), "%s: %s is not label %s", m.Name, p, m.Labels[i])
		}
		id := m.Name + "{" + strings.Join(pairs, ",") + "}"
		_, dup := got[id]
		require.False(e.t, dup, "sample %s emitted twice", id)
		got[id] = v
	})
	return got
}

// of returns the samples whose id starts with prefix.
func of(samples map[string]float64, prefix string) map[string]float64 {
	out := map[string]float64{}
	for id, v := range samples {
		if strings.HasPrefix(id, prefix) {
			out[id] = v
		}
	}
	return out
}

func TestReadEveryCommandSample(t *testing.T) {
	e := newEnv(t)
	e.run("OK", "SEMAPHORE", 20*time.Millisecond, nil)
	e.run("OK", "SEMAPHORE", 20*time.Millisecond, nil)
	e.run("OK", "SEMAPHORE", 20*time.Millisecond, errors.New("boom"))
	e.advance(10 * time.Second) // one percentile bucket closed, health snapshots taken

	s := e.read()
	const l = "command=OK,group=G,thread_pool=G"
	assert.Equal(t, map[string]float64{
		"command.events{" + l + ",event=success}":              2,
		"command.events{" + l + ",event=failure}":              1,
		"command.events{" + l + ",event=timeout}":              0,
		"command.events{" + l + ",event=short_circuited}":      0,
		"command.events{" + l + ",event=thread_pool_rejected}": 0,
		"command.events{" + l + ",event=semaphore_rejected}":   0,
		"command.events{" + l + ",event=fallback_success}":     1,
	}, of(s, "command.events{"), "the primary outcomes always, other events once they happened")

	for _, p := range Percentiles {
		assert.InEpsilon(t, 0.020, s["command.execution_latency{"+l+",percentile="+p.Label+"}"], 0.01, p.Label)
		assert.InEpsilon(t, 0.020, s["command.total_latency{"+l+",percentile="+p.Label+"}"], 0.01, p.Label)
	}
	assert.Equal(t, 0.020, s["command.execution_latency.mean{"+l+"}"])
	assert.Equal(t, 0.020, s["command.total_latency.mean{"+l+"}"])
	assert.Equal(t, 0.0, s["command.concurrent_executions{"+l+"}"])
	assert.Equal(t, 3.0, s["command.health.requests{"+l+"}"], "the window still holds them")
	assert.Equal(t, 1.0, s["command.health.errors{"+l+"}"])
	assert.Equal(t, map[string]float64{
		"circuit_breaker.state{" + l + ",state=closed}":    1,
		"circuit_breaker.state{" + l + ",state=open}":      0,
		"circuit_breaker.state{" + l + ",state=half_open}": 0,
	}, of(s, "circuit_breaker.state{"))
	assert.Empty(t, of(s, "circuit_breaker.transitions{"), "none yet")
	assert.Len(t, s, 7+2*len(Percentiles)+6+3, "no other sample")
}

func TestReadCountsBreakerTransitionsAndConcurrency(t *testing.T) {
	e := newEnv(t)
	for range 20 {
		e.run("Trip", "SEMAPHORE", 0, errors.New("down"))
	}
	e.advance(500 * time.Millisecond)
	require.Equal(t, breaker.Open, (<-e.trans).To)
	const l = "command=Trip,group=G,thread_pool=G"
	s := e.read()
	assert.Equal(t, 1.0, s["circuit_breaker.state{"+l+",state=open}"])
	assert.Equal(t, 0.0, s["circuit_breaker.state{"+l+",state=closed}"])
	assert.Equal(t, 1.0, s["circuit_breaker.transitions{"+l+",from=closed,to=open}"])

	e.advance(5 * time.Second) // sleep window: the next call is the trial, and it succeeds
	e.run("Trip", "SEMAPHORE", 0, nil)
	require.Equal(t, breaker.HalfOpen, (<-e.trans).To)
	require.Equal(t, breaker.Closed, (<-e.trans).To)
	s = e.read()
	assert.Equal(t, 1.0, s["circuit_breaker.state{"+l+",state=closed}"])
	assert.Equal(t, 1.0, s["circuit_breaker.transitions{"+l+",from=open,to=half_open}"])
	assert.Equal(t, 1.0, s["circuit_breaker.transitions{"+l+",from=half_open,to=closed}"])
	assert.Len(t, of(s, "circuit_breaker.transitions{"), 3, "only transitions that happened")

	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = command.New(command.Setter{Runtime: e.rt, CommandKey: "Trip", GroupKey: "G"},
			func(context.Context) (string, error) { close(started); <-release; return "", nil }).Execute(context.Background())
	}()
	<-started
	assert.Equal(t, 1.0, e.read()["command.concurrent_executions{"+l+"}"], "live")
	close(release)
	<-done
}

func TestReadThreadPoolsAndCollapsers(t *testing.T) {
	e := newEnv(t)
	e.run("P", "THREAD", 0, nil)
	e.run("P", "THREAD", 0, nil)
	require.Eventually(t, func() bool { return e.rt.Metrics().ThreadPool("G").Gauges().CompletedTaskCount == 2 },
		5*time.Second, time.Millisecond, "a worker counts its task after the caller has its value")
	e.advance(time.Second)
	s := e.read()
	g := e.rt.Metrics().ThreadPool("G").Gauges() // how many workers the pool started is its business
	require.Positive(t, g.PoolSize)
	assert.Equal(t, map[string]float64{
		"thread_pool.events{thread_pool=G,event=executed}": 2,
		"thread_pool.events{thread_pool=G,event=rejected}": 0,
		"thread_pool.active_threads{thread_pool=G}":        0,
		"thread_pool.max_active_threads{thread_pool=G}":    1,
		"thread_pool.queued_tasks{thread_pool=G}":          0,
		"thread_pool.threads{thread_pool=G}":               float64(g.PoolSize),
		"thread_pool.largest_threads{thread_pool=G}":       float64(g.LargestPoolSize),
		"thread_pool.core_threads{thread_pool=G}":          10,
		"thread_pool.max_threads{thread_pool=G}":           10,
		"thread_pool.completed_tasks{thread_pool=G}":       2,
		"thread_pool.tasks{thread_pool=G}":                 2,
	}, of(s, "thread_pool."))

	c := e.rt.Metrics().Collapser("C")
	for size := 1; size <= 100; size++ {
		c.MarkBatch(size)
	}
	c.MarkResponseFromCache()
	e.advance(10 * time.Second) // one percentile bucket closed
	s = e.read()
	assert.Equal(t, map[string]float64{
		"collapser.events{collapser=C,event=batch_executed}":      100,
		"collapser.events{collapser=C,event=added_to_batch}":      5050,
		"collapser.events{collapser=C,event=response_from_cache}": 1,
	}, of(s, "collapser.events"))
	assert.Equal(t, 50.5, s["collapser.batch_size.mean{collapser=C}"])
	for _, p := range Percentiles {
		// within the histogram's relative accuracy (1.6 %), or one batch for the small ones
		assert.InDelta(t, p.P, s["collapser.batch_size{collapser=C,percentile="+p.Label+"}"], max(1.01, p.P*0.016), p.Label)
	}
}

func TestReadCreatesNothingAndEvictedKeysDisappear(t *testing.T) {
	e := newEnv(t, command.WithMetricsOptions(metrics.WithIdleTimeout(20*time.Second)))
	e.rt.Metrics().Command("MetricsOnly")
	s := e.read()
	assert.Len(t, of(s, "command.events{command=MetricsOnly"), 6, "the primary outcomes, at 0")
	assert.Empty(t, of(s, "circuit_breaker."), "no breaker, no breaker samples")
	_, ok := e.rt.Breakers().Lookup("MetricsOnly")
	assert.False(t, ok, "reading made no breaker")

	for range 20 {
		e.run("Gone", "SEMAPHORE", 0, errors.New("down"))
	}
	e.advance(500 * time.Millisecond)
	<-e.trans
	assert.NotEmpty(t, of(e.read(), "circuit_breaker.transitions{command=Gone"))

	e.advance(80 * time.Second) // windows empty (latencies stay 60 s), then idle for the timeout: evicted
	assert.Empty(t, e.read(), "every series of an evicted key is gone")
	e.r.mu.Lock()
	assert.Empty(t, e.r.trans, "and so are its transition counts")
	e.r.mu.Unlock()
	assert.Empty(t, e.rt.Metrics().Commands())
}

func TestReadMakesEachLabelSetOnceAndDropsThoseOfEvictedKeys(t *testing.T) {
	e := newEnv(t, command.WithMetricsOptions(metrics.WithIdleTimeout(20*time.Second)))
	e.run("OK", "SEMAPHORE", 20*time.Millisecond, nil)
	e.advance(time.Second)
	first := e.read()
	perKey := int64(1 + 6 + len(Percentiles) + 3) // its own, the outcomes, the percentiles, the states
	assert.Equal(t, perKey, e.made.Load(), "the key's label sets, each made once, the latencies' percentiles shared")

	var wg sync.WaitGroup
	counts := make([]int, 4)
	for i := range counts {
		wg.Go(func() { e.r.Read(func(int, []string, float64) { counts[i]++ }) })
	}
	wg.Wait()
	assert.Equal(t, []int{len(first), len(first), len(first), len(first)}, counts, "concurrent reads")
	assert.Equal(t, first, e.read())
	assert.Equal(t, perKey, e.made.Load(), "later reads make none")

	e.advance(80 * time.Second) // idle for the timeout: evicted
	assert.Empty(t, e.read())
	e.r.cache.Lock()
	assert.Empty(t, e.r.entities, "an evicted key's label sets are dropped")
	e.r.cache.Unlock()

	e.run("OK", "SEMAPHORE", 20*time.Millisecond, nil)
	assert.NotEmpty(t, e.read())
	assert.Greater(t, e.made.Load(), perKey, "a key that comes back has its labels made again")
}

// A key under ADAPTIVE isolation has its limit's gauges, and its rejections are an event.
func TestReadAdaptiveSamples(t *testing.T) {
	e := newEnv(t)
	props := config.Overrides{"execution.isolation.strategy": "ADAPTIVE", "execution.isolation.adaptive.minLimit": "1",
		"execution.isolation.adaptive.initialLimit": "1", "execution.isolation.adaptive.maxLimit": "1"}
	s := command.Setter{Runtime: e.rt, CommandKey: "A", GroupKey: "G", Properties: props}
	fb := func(context.Context, error) (string, error) { return "fb", nil }
	var rejected error
	_, err := command.New(s, func(context.Context) (string, error) {
		_, rejected = command.New(s, func(context.Context) (string, error) { return "v", nil }).Execute(context.Background())
		return "v", nil
	}).WithFallback(fb).Execute(context.Background())
	require.NoError(t, err)
	require.ErrorIs(t, rejected, command.ErrAdaptiveRejected, "the outer one held the only permit")
	e.run("S", "SEMAPHORE", 0, nil)
	e.advance(time.Second)

	got := e.read()
	const l = "command=A,group=G,thread_pool=G"
	assert.Equal(t, 1.0, got["command.events{"+l+",event=adaptive_rejected}"])
	assert.Equal(t, map[string]float64{
		"command.adaptive.limit{" + l + "}":    1,
		"command.adaptive.inflight{" + l + "}": 0,
		"command.adaptive.queued{" + l + "}":   0,
	}, of(got, "command.adaptive."), "only the ADAPTIVE key has them")
}
