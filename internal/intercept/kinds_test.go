package intercept

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func one(context.Context) (int, error) { return 1, nil }

func TestKindsDefineAKeyOnceForAllItsCalls(t *testing.T) {
	rt := command.NewRuntime(command.WithConfig(config.NewStore()))
	defer rt.Close()
	var b Base
	var k Kinds[int]
	tmpl := command.Setter{Runtime: rt, GroupKey: "G"}
	for _, key := range []string{"A", "B", "A", "A", "B", "A"} {
		v, err := k.New(Setter(b.Of(tmpl), nil, constant, key), one).Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, v)
	}
	assert.EqualValues(t, 2, k.Defines(), "one Define per key, whatever the number of calls")
	a := k.Kind("A")
	require.NotNil(t, a)
	assert.NotNil(t, k.Kind("B"))
	assert.Nil(t, k.Kind("C"), "a key never called")
	_, err := k.New(Setter(b.Of(tmpl), nil, constant, "A"), one).Execute(context.Background())
	require.NoError(t, err)
	assert.Same(t, a, k.Kind("A"))

	var unnamed Kinds[int]
	_, err = unnamed.New(command.Setter{Runtime: rt, GroupKey: "G"}, one).Execute(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, unnamed.Kind("G"), "a Setter without a key is its group's, as the command package names it")
}

// An invalid Setter fails every call as command.New's Execute does: the same
// BAD_REQUEST_EXCEPTION, counted per call and logged once.
func TestKindsInvalidSetterFailsEachCallAsCommandNew(t *testing.T) {
	logged := &syncbuf.Buffer{}
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	rt := command.NewRuntime(command.WithClock(clk), command.WithConfig(config.NewStore()),
		command.WithLogger(slog.New(slog.NewTextHandler(logged, nil))))
	defer rt.Close()
	bad := command.Setter{Runtime: rt, CommandKey: "bad", Properties: config.Overrides{"execution.isolation.strategy": "SIDEWAYS"}}
	elsewhere := command.NewRuntime(command.WithConfig(config.NewStore()), command.WithLogger(slog.New(slog.DiscardHandler)))
	defer elsewhere.Close()
	other := bad
	other.Runtime = elsewhere
	_, want := command.New(other, one).Execute(context.Background())
	require.Error(t, want)

	var k Kinds[int]
	for range 3 {
		_, err := k.New(bad, one).Execute(context.Background())
		var ce *command.Error
		require.True(t, errors.As(err, &ce))
		assert.Equal(t, command.BadRequestException, ce.Type)
		assert.Equal(t, want.Error(), err.Error())
	}
	assert.Nil(t, k.Kind("bad"), "the key's calls take command.New")
	assert.EqualValues(t, 1, k.Defines(), "defined once, refused once")
	rt.Metrics().Flush()
	clk.Advance(time.Second)
	rt.Metrics().Flush()
	assert.EqualValues(t, 3, rt.Metrics().Command("bad").CumulativeCount(metrics.BadRequest), "every call counted")
	assert.Equal(t, 1, strings.Count(logged.String(), "invalid settings"), "logged once")
}

// A key the application defined with other settings runs on the application's: the
// integration's calls do not fail, and the difference is logged once.
func TestKindsKeyDefinedElsewhereRunsOnItsSettings(t *testing.T) {
	logged := &syncbuf.Buffer{}
	rt := command.NewRuntime(command.WithConfig(config.NewStore()),
		command.WithLogger(slog.New(slog.NewTextHandler(logged, nil))))
	defer rt.Close()
	app, err := command.Define[int](command.Setter{Runtime: rt, CommandKey: "K",
		Properties: config.Overrides{"execution.isolation.strategy": "THREAD"}})
	require.NoError(t, err)

	var b Base
	var k Kinds[int]
	for range 3 {
		cmd := k.New(Setter(b.Of(command.Setter{Runtime: rt}), nil, constant, "K"), one)
		v, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, v)
		assert.True(t, cmd.IsExecutedInThread(), "the application's settings")
	}
	assert.Nil(t, k.Kind("K"), "Define refused the integration's Setter: command.New")
	assert.Equal(t, 1, strings.Count(logged.String(), "differs from the first one"))
	_, err = app.ExecutePooled(context.Background(), one)
	require.NoError(t, err)
}

// A key evicted for idleness keeps its Kind, which runs on the key's live state again:
// the breaker still learns the key's health, and the key is not defined again.
func TestKindsKeyOutlivesItsEviction(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	rt := command.NewRuntime(command.WithClock(clk), command.WithConfig(config.NewStore()),
		command.WithMetricsOptions(metrics.WithIdleTimeout(time.Second)))
	defer rt.Close()
	s := command.Setter{Runtime: rt, CommandKey: "K", Properties: config.Overrides{
		"circuitBreaker.requestVolumeThreshold":         "3",
		"metrics.healthSnapshot.intervalInMilliseconds": "100",
	}}
	var k Kinds[int]
	_, err := k.New(s, one).Execute(context.Background())
	require.NoError(t, err)

	for range 8 { // past every window and the idle timeout
		clk.Advance(10 * time.Second)
	}
	rt.Metrics().Flush()
	require.Empty(t, rt.Metrics().Commands(), "the key was evicted")

	fail := func(context.Context) (int, error) { return 0, errors.New("down") }
	for range 5 {
		_, err := k.New(s, fail).Execute(context.Background())
		require.Error(t, err)
	}
	assert.EqualValues(t, 1, k.Defines())
	rt.Metrics().Flush()
	clk.Advance(time.Second)
	rt.Metrics().Flush()
	_, err = k.New(s, one).Execute(context.Background())
	assert.ErrorIs(t, err, command.ErrShortCircuited, "the breaker learns the key's health")
}

// BenchmarkNew compares what a call pays for its command: command.New, which looks its
// key up and compares the Setter with the key's, and Kinds.New, which looks the key's
// Kind up.
func BenchmarkNew(b *testing.B) {
	rt := command.NewRuntime(command.WithConfig(config.NewStore()))
	defer rt.Close()
	var base Base
	s := Setter(base.Of(command.Setter{Runtime: rt, GroupKey: "G", Properties: config.Overrides{
		"execution.isolation.thread.timeoutInMilliseconds": "300"}}), nil, constant, "K")
	b.Run("command.New", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = command.New(s, one)
		}
	})
	b.Run("Kinds.New", func(b *testing.B) {
		var k Kinds[int]
		b.ReportAllocs()
		for b.Loop() {
			_ = k.New(s, one)
		}
	})
}
