package intercept

import (
	"context"
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

	s := Setter(tmpl, "K")
	assert.Equal(t, "K", s.CommandKey)
	assert.Equal(t, config.Overrides{"circuitBreaker.enabled": "false", "execution.isolation.strategy": "SEMAPHORE"}, s.Properties)
	assert.Equal(t, config.Overrides{"circuitBreaker.enabled": "false"}, tmpl.Properties, "the caller's map is not touched")

	cmd := command.New(s, func(context.Context) (int, error) { return 1, nil })
	_, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.False(t, cmd.IsExecutedInThread())

	again := Setter(tmpl, "K")
	assert.Equal(t, tmpl.Properties, again.Properties, "a resolved key's properties are never read again: no copy")

	explicit := command.Setter{Runtime: rt, Properties: config.Overrides{"execution.isolation.strategy": "THREAD"}}
	assert.Equal(t, explicit.Properties, Setter(explicit, "T").Properties)
	assert.Equal(t, config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}, Setter(command.Setter{Runtime: rt}, "N").Properties)
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
