package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvName(t *testing.T) {
	assert.Equal(t, "HYSTRIX_COMMAND_GETUSER_EXECUTION_ISOLATION_THREAD_TIMEOUTINMILLISECONDS",
		envName("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds"))
	assert.Equal(t, "HYSTRIX_THREADPOOL_MY_POOL_2_CORESIZE", envName("hystrix.threadpool.my-pool.2.coreSize"))
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
	assert.Equal(t, 250*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.False(t, FallbackEnabled.In(c).Get(), "the exact dotted name wins over the mapped one")
	p, err := store.ThreadPool("Any", nil)
	require.NoError(t, err)
	assert.Equal(t, 3, ThreadPoolCoreSize.In(p).Get())
	assert.Equal(t, -1, ThreadPoolMaxQueueSize.In(p).Get(), "the environment is read once")

	v, ok := env.Get("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds")
	assert.True(t, ok)
	assert.Equal(t, "250", v)
	_, ok = env.Get("hystrix.command.Nobody.fallback.enabled")
	assert.False(t, ok)
	env.Subscribe(func() error { t.Error("never called"); return nil })()
}

func TestEnvNamesSharedByTwoKeysAreRefusedForBoth(t *testing.T) {
	t.Setenv("HYSTRIX_COMMAND_GR__E_FALLBACK_ENABLED", "false")
	t.Setenv("HYSTRIX_COMMAND_GR__E_EXECUTION_ISOLATION_THREAD_TIMEOUTINMILLISECONDS", "200")
	t.Setenv("hystrix.command.Grüße.circuitBreaker.forceOpen", "true")
	store := NewStore(NewEnvSource())
	defer store.Close()
	log := &errLog{}
	defer store.OnError(log.add)()

	a, err := store.Command("Größe", nil)
	require.NoError(t, err)
	assert.False(t, FallbackEnabled.In(a).Get(), "alone, the key reads the variable")
	early := log.take()
	require.Len(t, early, 1, "the dotted name of a key spelt like it, not defined yet")
	assert.ErrorIs(t, early[0], ErrUnknownKey)

	b, err := store.Command("Grüße", nil)
	require.NoError(t, err)
	assert.True(t, FallbackEnabled.In(a).Get(), "refused for the first key too")
	assert.True(t, FallbackEnabled.In(b).Get())
	assert.Equal(t, time.Second, ExecutionTimeout.In(a).Get())
	assert.Equal(t, time.Second, ExecutionTimeout.In(b).Get())
	assert.True(t, CircuitBreakerForceOpen.In(b).Get(), "an exact dotted name still applies")
	assert.False(t, CircuitBreakerForceOpen.In(a).Get())
	errs := log.take()
	require.Len(t, errs, 4)
	var msgs []string
	for _, e := range errs {
		assert.ErrorIs(t, e, ErrAmbiguousEnv)
		msgs = append(msgs, e.Error())
	}
	assert.Contains(t, msgs, `config: hystrix.command.Größe.fallback.enabled: invalid value "false": ambiguous environment variable: `+
		`HYSTRIX_COMMAND_GR__E_FALLBACK_ENABLED also names hystrix.command.Grüße.fallback.enabled; refused for both`)
	assert.Contains(t, msgs, `config: hystrix.command.Grüße.fallback.enabled: invalid value "false": ambiguous environment variable: `+
		`HYSTRIX_COMMAND_GR__E_FALLBACK_ENABLED also names hystrix.command.Größe.fallback.enabled; refused for both`)

	require.True(t, store.ForgetCommand("Grüße"))
	assert.False(t, FallbackEnabled.In(a).Get(), "alone again, the key reads the variable again")
	assert.Equal(t, 200*time.Millisecond, ExecutionTimeout.In(a).Get())
}

func TestEnvNamesOfKeyDefaultAreTheDefaultLevel(t *testing.T) {
	t.Setenv("HYSTRIX_COMMAND_DEFAULT_FALLBACK_ENABLED", "false")
	store := NewStore(NewEnvSource())
	defer store.Close()
	log := &errLog{}
	defer store.OnError(log.add)()
	c, err := store.Command("Default", Overrides{"fallback.enabled": "true"})
	require.NoError(t, err)
	assert.True(t, FallbackEnabled.In(c).Get(), "the default level does not beat the value set in code")
	errs := log.take()
	require.Len(t, errs, 1)
	assert.ErrorContains(t, errs[0], "HYSTRIX_COMMAND_DEFAULT_FALLBACK_ENABLED also names hystrix.command.default.fallback.enabled")
	other, err := store.Command("Other", nil)
	require.NoError(t, err)
	assert.False(t, FallbackEnabled.In(other).Get(), "the default level applies to every key")
}

func TestEnvNamesSharedByThreeKeys(t *testing.T) {
	t.Setenv("HYSTRIX_THREADPOOL_GET_USER_CORESIZE", "3")
	store := NewStore(NewEnvSource())
	defer store.Close()
	var pools []*ThreadPoolProperties
	for _, k := range []string{"get-user", "GET_USER", "Get.User"} {
		p, err := store.ThreadPool(k, nil)
		require.NoError(t, err)
		pools = append(pools, p)
	}
	for _, p := range pools {
		assert.Equal(t, 10, ThreadPoolCoreSize.In(p).Get(), p.Key())
	}
	require.True(t, store.ForgetThreadPool("get-user"))
	assert.Equal(t, 10, ThreadPoolCoreSize.In(pools[1]).Get(), "still two")
	assert.Equal(t, 10, ThreadPoolCoreSize.In(pools[2]).Get())
	require.True(t, store.ForgetThreadPool("Get.User"))
	assert.Equal(t, 3, ThreadPoolCoreSize.In(pools[1]).Get(), "alone")
}
