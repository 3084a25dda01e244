package intercept

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBaseDefaultsToSemaphoreOnce(t *testing.T) {
	rt := command.NewRuntime()
	defer rt.Close()
	logged := &syncbuf.Buffer{}
	rt2 := command.NewRuntime(command.WithLogger(slog.New(slog.NewTextHandler(logged, nil))))
	defer rt2.Close()
	tmpl := command.Setter{Runtime: rt2, GroupKey: "G", Properties: config.Overrides{"circuitBreaker.enabled": "false"}}

	var b Base
	s := b.Of(tmpl)
	assert.Equal(t, config.Overrides{"circuitBreaker.enabled": "false", "execution.isolation.strategy": "SEMAPHORE"}, s.Properties)
	assert.Equal(t, config.Overrides{"circuitBreaker.enabled": "false"}, tmpl.Properties, "the caller's map is not touched")
	for range 3 {
		cmd := command.New(Setter(b.Of(tmpl), nil, constant, "K"), func(context.Context) (int, error) { return 1, nil })
		_, err := cmd.Execute(context.Background())
		require.NoError(t, err)
		assert.False(t, cmd.IsExecutedInThread())
	}
	assert.Empty(t, logged.String(), "every call passes the same Setter: nothing differs")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = b.Of(tmpl) }))

	var explicit Base
	threaded := command.Setter{Runtime: rt, Properties: config.Overrides{"execution.isolation.strategy": "THREAD"}}
	assert.Equal(t, threaded.Properties, explicit.Of(threaded).Properties)
	var empty Base
	assert.Equal(t, config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}, empty.Of(command.Setter{Runtime: rt}).Properties)
}

func constant(x string) string { return x }

func TestSetterKey(t *testing.T) {
	rt := command.NewRuntime()
	defer rt.Close()
	upper := func(x string) string { return strings.ToUpper(x) }
	assert.Equal(t, "X", Setter(command.Setter{Runtime: rt, CommandKey: "fixed"}, upper, constant, "x").CommandKey, "Key wins")
	assert.Equal(t, "fixed", Setter(command.Setter{Runtime: rt, CommandKey: "fixed"}, nil, constant, "x").CommandKey, "then the Setter's key")
	assert.Equal(t, "x", Setter(command.Setter{Runtime: rt}, nil, constant, "x").CommandKey, "then the default")
}

func TestCallEndWaitsForTheRunAndStopsLaterOnes(t *testing.T) {
	var c Call
	require.True(t, c.Begin())
	ended := make(chan struct{})
	go func() {
		c.End()
		close(ended)
	}()
	select {
	case <-ended:
		t.Fatal("End returned while the run was running")
	case <-time.After(20 * time.Millisecond):
	}
	c.Done()
	<-ended
	assert.False(t, c.Begin(), "a run abandoned before it began must not begin")
	c.End() // again: nothing to wait for
}
