package command

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestDefineReportsAnInvalidSetterAndKeepsNothing(t *testing.T) {
	e := newEnv(t)
	bad := Setter{Runtime: e.rt, CommandKey: "D", Properties: config.Overrides{"execution.timeout.enable": "false"}}
	_, err := Define[string](bad)
	re := runtimeErr(t, err, BadRequestException)
	assert.ErrorContains(t, re, "execution.timeout.enable")
	assert.Nil(t, e.rt.lookup("D"), "an invalid Setter does not define the key")

	_, err = Define[string](Setter{Runtime: e.rt, CommandKey: "D",
		ThreadPoolProperties: config.ThreadPoolOverrides{"coreSize": "-1"}})
	assert.ErrorContains(t, err, "coreSize", "thread-pool properties are checked too")

	k, err := Define[string](Setter{Runtime: e.rt, CommandKey: "D", Properties: config.Set(
		config.ExecutionIsolationStrategy.Of(config.Semaphore), config.ExecutionTimeout.Of(300*time.Millisecond))})
	require.NoError(t, err)
	got, err := k.New(value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, 300*time.Millisecond, config.ExecutionTimeout.In(e.key("D").props).Get())
}

func TestDefineStreamRefusesThreadIsolation(t *testing.T) {
	e := newEnv(t)
	_, err := DefineStream[int](Setter{Runtime: e.rt, CommandKey: "S",
		Properties: config.Overrides{"execution.isolation.strategy": "THREAD"}})
	assert.ErrorIs(t, err, errStreamThread)
	k, err := DefineStream[int](Setter{Runtime: e.rt, CommandKey: "S"})
	require.NoError(t, err)
	var got []int
	for v, err := range k.New(emittingInts(1, 2)).Values(context.Background()) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2}, got)
}

func emittingInts(values ...int) func(context.Context) rxgo.Observable {
	return func(context.Context) rxgo.Observable {
		items := make([]any, len(values))
		for i, v := range values {
			items[i] = v
		}
		return rxgo.Just(items...)()
	}
}

func TestMisconfiguredKeyIsCountedAndLoggedOnce(t *testing.T) {
	e := newEnv(t)
	s := Setter{Runtime: e.rt, CommandKey: "M", Properties: config.Overrides{"fallback.enabled": "maybe"}}
	for range 3 {
		_, err := New(s, value("v")).Execute(context.Background())
		runtimeErr(t, err, BadRequestException)
	}
	e.tick(time.Second)
	assert.EqualValues(t, 3, e.rt.Metrics().Command("M").CumulativeCount(metrics.BadRequest),
		"misconfigured executions show up in metrics and on the dashboard")
	assert.Equal(t, 1, strings.Count(e.log.String(), "invalid settings"), e.log.String())

	got, err := New(e.setter("M"), value("v")).Execute(context.Background())
	require.NoError(t, err, "a different, valid Setter repairs the key")
	assert.Equal(t, "v", got)
}

func TestASecondSetterThatDiffersIsLoggedOnce(t *testing.T) {
	e := newEnv(t)
	first := e.setter("K", "execution.isolation.thread.timeoutInMilliseconds", "300")
	same := e.setter("K", "execution.isolation.thread.timeoutInMilliseconds", "300ms")
	other := e.setter("K", "execution.isolation.thread.timeoutInMilliseconds", "3000")
	for _, s := range []Setter{first, same, first} {
		_, _ = New(s, value("v")).Execute(context.Background())
	}
	assert.NotContains(t, e.log.String(), "differs", "the same values, written differently, are the same Setter")
	for range 2 {
		_, _ = New(other, value("v")).Execute(context.Background())
	}
	assert.Equal(t, 1, strings.Count(e.log.String(), "differs"), e.log.String())
	assert.Contains(t, e.log.String(), "execution.isolation.thread.timeoutInMilliseconds: 300 -> 3000")
	assert.Equal(t, 300*time.Millisecond, config.ExecutionTimeout.In(e.key("K").props).Get(), "the first Setter wins")
}

func TestNilContextAndNilRunAreRefused(t *testing.T) {
	e := newEnv(t)
	//lint:ignore SA1012 the nil context is the point
	_, err := New(e.setter("N"), value("v")).Execute(nil) //nolint:staticcheck
	re := runtimeErr(t, err, BadRequestException)
	assert.ErrorIs(t, re, errNilContext)
	_, err = New[string](e.setter("N"), nil).Execute(context.Background())
	assert.ErrorIs(t, err, errNilRun)
	f, err := New[string](e.setter("N"), nil).Queue(context.Background())
	assert.ErrorIs(t, err, errNilRun)
	_, err = f.Get(context.Background())
	assert.ErrorIs(t, err, errNilRun)
	for _, err := range NewStream[int](e.setter("N"), nil).Values(context.Background()) {
		assert.ErrorIs(t, err, errNilRun)
	}
	e.tick(time.Second)
	m := e.rt.Metrics().Command("N")
	for _, ev := range metrics.AllEventTypes() {
		assert.Zero(t, m.CumulativeCount(ev), "the caller's mistake records nothing against the key: %s", ev)
	}
	assert.False(t, e.key("N").breaker.IsOpen())
}

func TestASecondDefineWithOtherSettingsIsAnError(t *testing.T) {
	e := newEnv(t)
	first := e.setter("R", "execution.isolation.thread.timeoutInMilliseconds", "1000")
	k, err := Define[string](first)
	require.NoError(t, err)

	same := e.setter("R", "execution.isolation.thread.timeoutInMilliseconds", "1s")
	again, err := Define[string](same)
	require.NoError(t, err, "the same settings, written otherwise: idempotent")
	assert.Same(t, k.key.ks.Load(), again.key.ks.Load())

	_, err = Define[string](e.setter("R", "execution.isolation.thread.timeoutInMilliseconds", "5s"))
	re := runtimeErr(t, err, BadRequestException)
	assert.ErrorIs(t, re, ErrRedefined, "the trap: nil, and a log line")
	assert.ErrorContains(t, re, "execution.isolation.thread.timeoutInMilliseconds: 1000 -> 5000", "in one unit")

	other := first
	other.GroupKey = "Elsewhere"
	_, err = Define[string](other)
	assert.ErrorContains(t, err, "GroupKey: G -> Elsewhere")
	_, err = DefineStream[string](first)
	assert.ErrorIs(t, err, ErrRedefined, "a stream is another kind of key")
	assert.Equal(t, time.Second, config.ExecutionTimeout.In(e.key("R").props).Get(), "the key keeps its first settings")
}

// A Kind held for good outlives its key's eviction for idleness: its next executions run
// on the key's live state again (metrics the breaker reads, properties the store
// follows), so the breaker still opens on failures, through ExecutePooled, New and a Kind made
// by WithFallback alike.
func TestAKindOutlivesItsKeysEviction(t *testing.T) {
	for _, door := range []string{"ExecutePooled", "New", "WithFallback"} {
		t.Run(door, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			rt := NewRuntime(WithClock(clk), WithConfig(config.NewStore()),
				WithMetricsOptions(metrics.WithIdleTimeout(time.Second)))
			defer rt.Close()
			kind, err := Define[string](Setter{Runtime: rt, CommandKey: "K", Properties: config.Overrides{
				"execution.isolation.strategy":                  "SEMAPHORE",
				"circuitBreaker.requestVolumeThreshold":         "3",
				"metrics.healthSnapshot.intervalInMilliseconds": "100",
			}})
			require.NoError(t, err)
			if door == "WithFallback" {
				kind = kind.WithFallback(func(_ context.Context, err error) (string, error) { return "", err })
			}
			exec := func(run func(context.Context) (string, error)) error {
				if door == "New" {
					_, err := kind.New(run).Execute(context.Background())
					return err
				}
				_, err := kind.ExecutePooled(context.Background(), run)
				return err
			}
			require.NoError(t, exec(value("v")))
			forgotten := kind.key.ks.Load()
			for range 8 { // past every window and the idle timeout
				clk.Advance(10 * time.Second)
			}
			rt.Metrics().Flush()
			require.Empty(t, rt.Metrics().Commands(), "the key was evicted")

			for range 5 {
				require.Error(t, exec(func(context.Context) (string, error) { return "", errBoom }))
			}
			assert.NotSame(t, forgotten, kind.key.ks.Load(), "the key was resolved again")
			rt.Metrics().Flush()
			clk.Advance(time.Second)
			rt.Metrics().Flush()
			assert.ErrorIs(t, exec(value("v")), ErrShortCircuited, "the breaker learns the key's health")
		})
	}
}
