package intercept

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSetterDefaultsToSemaphoreOnTheKeysFirstUse(t *testing.T) {
	rt := command.NewRuntime()
	defer rt.Close()
	tmpl := command.Setter{Runtime: rt, GroupKey: "G", Properties: config.Overrides{"circuitBreaker.enabled": "false"}}

	s := Setter(tmpl, nil, constant, "K")
	assert.Equal(t, "K", s.CommandKey)
	assert.Equal(t, config.Overrides{"circuitBreaker.enabled": "false", "execution.isolation.strategy": "SEMAPHORE"}, s.Properties)
	assert.Equal(t, config.Overrides{"circuitBreaker.enabled": "false"}, tmpl.Properties, "the caller's map is not touched")

	cmd := command.New(s, func(context.Context) (int, error) { return 1, nil })
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.False(t, cmd.IsExecutedInThread())

	again := Setter(tmpl, nil, constant, "K")
	assert.Equal(t, tmpl.Properties, again.Properties, "a resolved key's properties are never read again: no copy")

	explicit := command.Setter{Runtime: rt, Properties: config.Overrides{"execution.isolation.strategy": "THREAD"}}
	assert.Equal(t, explicit.Properties, Setter(explicit, nil, constant, "T").Properties)
	assert.Equal(t, config.Overrides{"execution.isolation.strategy": "SEMAPHORE"},
		Setter(command.Setter{Runtime: rt}, nil, constant, "N").Properties)
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
