package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvName(t *testing.T) {
	assert.Equal(t, "HYSTRIX_COMMAND_GETUSER_EXECUTION_ISOLATION_THREAD_TIMEOUTINMILLISECONDS",
		EnvName("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds"))
	assert.Equal(t, "HYSTRIX_THREADPOOL_MY_POOL_2_CORESIZE", EnvName("hystrix.threadpool.my-pool.2.coreSize"))
}

func TestEnvSource(t *testing.T) {
	t.Setenv("HYSTRIX_COMMAND_GETUSER_EXECUTION_ISOLATION_THREAD_TIMEOUTINMILLISECONDS", "250")
	t.Setenv("hystrix.command.default.fallback.enabled", "false")
	t.Setenv("HYSTRIX_COMMAND_DEFAULT_FALLBACK_ENABLED", "true")
	t.Setenv("HYSTRIX_THREADPOOL_DEFAULT_CORESIZE", "3")
	env := NewEnvSource()
	t.Setenv("HYSTRIX_THREADPOOL_DEFAULT_MAXQUEUESIZE", "9") // after the snapshot

	store := NewStore(env)
	defer store.Close()
	c, err := store.Command("GetUser", nil)
	require.NoError(t, err)
	assert.Equal(t, 250*time.Millisecond, c.ExecutionTimeout.Get())
	assert.False(t, c.FallbackEnabled.Get(), "the exact dotted name wins over the mapped one")
	p, err := store.ThreadPool("Any", nil)
	require.NoError(t, err)
	assert.Equal(t, 3, p.CoreSize.Get())
	assert.Equal(t, -1, p.MaxQueueSize.Get(), "the environment is read once")

	v, ok := env.Get("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds")
	assert.True(t, ok)
	assert.Equal(t, "250", v)
	_, ok = env.Get("hystrix.command.Nobody.fallback.enabled")
	assert.False(t, ok)
	env.Subscribe(func() { t.Error("never called") })()
}
