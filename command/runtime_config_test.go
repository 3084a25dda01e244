package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
)

// A runtime made without WithConfig reads the default sources, as config.Default does: a
// value set on config.DefaultSource() or in the environment reaches it (it used to reach
// config.Default only, and the runtime kept its old value in silence).
func TestARuntimeReadsTheDefaultSourcesUnlessGivenAStore(t *testing.T) {
	t.Setenv("HYSTRIX_COMMAND_ENVKEY_EXECUTION_ISOLATION_SEMAPHORE_MAXCONCURRENTREQUESTS", "7")
	rt := NewRuntime()
	defer rt.Close()
	timeout := func(key string) time.Duration {
		p, err := rt.Config().Command(key, nil)
		require.NoError(t, err)
		return p.ExecutionTimeout.Get()
	}
	_, err := New(Setter{Runtime: rt, CommandKey: "DefaultsKey"}, value("v")).Execute(context.Background())
	require.NoError(t, err)
	require.NoError(t, config.ExecutionTimeout.SetIn(config.DefaultSource(), "DefaultsKey", 123*time.Millisecond))
	t.Cleanup(func() {
		_ = config.DefaultSource().Delete("hystrix.command.DefaultsKey.execution.isolation.thread.timeoutInMilliseconds")
	})
	assert.Equal(t, 123*time.Millisecond, timeout("DefaultsKey"), "DefaultSource reaches the runtime at once")
	p, err := rt.Config().Command("EnvKey", nil)
	require.NoError(t, err)
	assert.Equal(t, 7, p.ExecutionMaxConcurrentRequests.Get(), "and so does the environment")

	own := config.NewStore()
	defer own.Close()
	apart := NewRuntime(WithConfig(own))
	defer apart.Close()
	q, err := apart.Config().Command("DefaultsKey", nil)
	require.NoError(t, err)
	assert.Equal(t, time.Second, q.ExecutionTimeout.Get(), "a runtime given a store reads only that store")
}
