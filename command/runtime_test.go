package command

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestKeyStateIsResolvedOncePerKey(t *testing.T) {
	e := newEnv(t)
	a := New(e.setter("K", "execution.isolation.semaphore.maxConcurrentRequests", "3"), value("a"))
	b := New(Setter{Runtime: e.rt, CommandKey: "K", GroupKey: "Other",
		Properties: config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "7"}}, value("b"))
	assert.Same(t, a.ks, b.ks, "the first setter of a key wins")
	assert.Equal(t, 3, config.ExecutionMaxConcurrentRequests.In(a.ks.props).Get())
	assert.Equal(t, "G", b.GroupKey())
	other := New(e.setter("L"), value("c"))
	assert.NotSame(t, a.ks, other.ks)
	assert.Same(t, e.rt.Metrics().Command("K"), a.ks.metrics)
}

func TestSetterDefaults(t *testing.T) {
	e := newEnv(t)
	cmd := New(Setter{Runtime: e.rt, GroupKey: "Users"}, value("v"))
	assert.Equal(t, "Users", cmd.CommandKey())
	assert.Equal(t, "Users", cmd.ThreadPoolKey())
	cmd = New(Setter{Runtime: e.rt, CommandKey: "GetUser", Properties: config.Overrides{
		"threadPoolKeyOverride": "Special"}}, value("v"))
	assert.Equal(t, "GetUser", cmd.GroupKey())
	assert.Equal(t, "Special", cmd.ThreadPoolKey())
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.True(t, cmd.IsExecutedInThread())
	pools := e.rt.pools.Pools()
	require.Len(t, pools, 1)
	assert.Equal(t, "Special", pools[0].Key())
	group, pool := e.rt.CommandKeys("GetUser")
	assert.Equal(t, [2]string{"GetUser", "Special"}, [2]string{group, pool})
	group, pool = e.rt.CommandKeys("NeverRan")
	assert.Empty(t, group+pool)

	_, err = New(Setter{Runtime: e.rt}, value("v")).Execute(context.Background())
	runtimeErr(t, err, BadRequestException)
}

func TestFreshRuntimesAreIsolated(t *testing.T) {
	e1, e2 := newEnv(t), newEnv(t)
	_, _ = New(e1.setter("K", "circuitBreaker.forceOpen", "true"), value("v")).Execute(context.Background())
	got, err := New(e2.setter("K"), value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	e1.tick(time.Second)
	e2.tick(time.Second)
	assert.EqualValues(t, 1, e1.key("K").metrics.CumulativeCount(metrics.ShortCircuited))
	assert.EqualValues(t, 0, e2.key("K").metrics.CumulativeCount(metrics.ShortCircuited))
	assert.EqualValues(t, 1, e2.key("K").metrics.CumulativeCount(metrics.Success))
	e1.assertIdle("K")
	e2.assertIdle("K")
}

func TestEveryCompletionReachesMetrics(t *testing.T) {
	e := newEnv(t)
	ctx := requestContext(t)
	s := e.setter("M")
	_, _ = New(s, value("v")).Execute(ctx)
	_, _ = New(s, failing(errBoom)).WithFallback(fallbackValue("fb")).Execute(ctx)
	_, _ = New(s, value("v")).WithCacheKey("k").Execute(ctx)
	_, _ = New(s, value("v")).WithCacheKey("k").Execute(ctx)
	_, _ = New(s, failing(BadRequest(errBoom))).Execute(ctx)
	e.tick(time.Second)
	m := e.key("M").metrics
	want := map[metrics.EventType]int64{
		metrics.Success: 2, metrics.Failure: 1, metrics.FallbackSuccess: 1, metrics.ResponseFromCache: 1,
		metrics.BadRequest: 1, metrics.ExceptionThrown: 1, metrics.Timeout: 0,
	}
	for ev, n := range want {
		assert.Equal(t, n, m.CumulativeCount(ev), ev.String())
	}
	assert.Zero(t, m.CurrentConcurrency())
	e.assertIdle("M")
}

func TestEvictedKeysComeBackFresh(t *testing.T) {
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk), WithMetricsOptions(metrics.WithIdleTimeout(time.Second)))
	defer rt.Close()
	s := Setter{Runtime: rt, CommandKey: "E", Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}}
	first := New(s, value("v"))
	_, err := first.Execute(context.Background())
	require.NoError(t, err)
	for range 10 { // past the rolling windows (percentiles: 60 s) and the idle timeout
		rt.Metrics().Flush()
		clk.Advance(10 * time.Second)
	}
	rt.Metrics().Flush()
	require.Eventually(t, func() bool { return rt.lookup("E") == nil }, 5*time.Second, time.Millisecond,
		"the runtime forgets an evicted key")
	assert.Empty(t, rt.Config().Commands(), "and its properties")
	s.Properties = config.Overrides{"execution.isolation.strategy": "SEMAPHORE", "execution.timeout.enabled": "false"}
	second := New(s, value("w"))
	assert.NotSame(t, first.ks, second.ks)
	assert.False(t, config.ExecutionTimeoutEnabled.In(second.ks.props).Get(), "a returning key resolves its Setter afresh")
	got, err := second.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "w", got)
	rt.Metrics().Flush()
}

func TestRuntimeAccessors(t *testing.T) {
	e := newEnv(t)
	assert.Equal(t, e.clk, e.rt.Clock())
	assert.NotNil(t, e.rt.Config())
	assert.NotNil(t, e.rt.Breakers())
	cmd := New(e.setter("A"), func(ctx context.Context) (string, error) { return fmt.Sprint(ctx), nil })
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "command.runContext", got)
}

func TestTheRuntimesLoggerGetsEveryReport(t *testing.T) {
	log := &syncbuf.Buffer{}
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk), WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	defer rt.Close()
	cancel := rt.Breakers().OnStateChange(func(breaker.Transition) { panic("listener exploded") })
	defer cancel()
	s := Setter{Runtime: rt, CommandKey: "L", Properties: config.Overrides{
		"execution.isolation.strategy": "SEMAPHORE", "circuitBreaker.forceOpen": "false",
		"circuitBreaker.requestVolumeThreshold": "1", "metrics.healthSnapshot.intervalInMilliseconds": "100"}}
	rt.Hooks().SetExecutionHook(panickingSuccessHook{})
	_, _ = New(s, failing(errBoom)).Execute(context.Background()) // defines the key
	_, _ = New(s, value("v")).Execute(context.Background())
	stop := rt.Metrics().Command("L").OnHealthCounts(func(metrics.HealthCounts) { panic("health listener exploded") })
	defer stop()
	clk.Advance(time.Second) // a health snapshot: the breaker opens, both listeners run
	rt.Metrics().Flush()
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "state change listener panicked") },
		5*time.Second, time.Millisecond, "listeners run on a delivery goroutine: %s", log.String())
	for _, want := range []string{"execution hook or event notifier panicked", "health listener exploded",
		"state change listener panicked"} {
		assert.Contains(t, log.String(), want)
	}
}

// panickingSuccessHook panics in OnSuccess, which cannot fail the command.
type panickingSuccessHook struct{ hooks.NoopHook }

func (panickingSuccessHook) OnSuccess(context.Context, hooks.Info) { panic("hook exploded") }
