package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
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
		return config.ExecutionTimeout.In(p).Get()
	}
	_, err := New(Setter{Runtime: rt, CommandKey: "DefaultsKey"}, value("v")).Execute(context.Background())
	require.NoError(t, err)
	require.NoError(t, config.ExecutionTimeout.SetIn(config.DefaultSource(), "DefaultsKey", 123*time.Millisecond))
	t.Cleanup(func() {
		_ = config.DefaultSource().Apply(nil, []string{"hystrix.command.DefaultsKey.execution.isolation.thread.timeoutInMilliseconds"})
	})
	assert.Equal(t, 123*time.Millisecond, timeout("DefaultsKey"), "DefaultSource reaches the runtime at once")
	p, err := rt.Config().Command("EnvKey", nil)
	require.NoError(t, err)
	assert.Equal(t, 7, config.ExecutionMaxConcurrentRequests.In(p).Get(), "and so does the environment")

	own := config.NewStore()
	defer own.Close()
	apart := NewRuntime(WithConfig(own))
	defer apart.Close()
	q, err := apart.Config().Command("DefaultsKey", nil)
	require.NoError(t, err)
	assert.Equal(t, time.Second, config.ExecutionTimeout.In(q).Get(), "a runtime given a store reads only that store")
}

// A dashboard or exporter that reads a key's metrics (or a thread pool's) before the key's
// first execution fixes none of its properties: the definition's values set in code
// apply, and the metrics are the ones the executions count in.
func TestReadingMetricsBeforeTheDefinitionFixesNothing(t *testing.T) {
	e := newEnv(t)
	early := e.rt.Metrics().Command("Early")
	e.rt.Metrics().ThreadPool("EarlyPool")
	s := e.setter("Early", "execution.isolation.semaphore.maxConcurrentRequests", "7")
	s.ThreadPoolKey = "EarlyPool"
	s.ThreadPoolProperties = config.ThreadPoolOverrides{"coreSize": "3"}
	s.Properties["execution.isolation.strategy"] = "THREAD"
	got, err := New(s, value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	ks := e.key("Early")
	assert.Equal(t, 7, config.ExecutionMaxConcurrentRequests.In(ks.props).Get())
	assert.Equal(t, config.Thread, config.ExecutionIsolationStrategy.In(ks.props).Get())
	assert.Same(t, early, ks.metrics)
	assert.Equal(t, []int64{1}, e.counts("Early", metrics.Success), "counted in the metrics read early")

	pool, err := e.rt.Config().ThreadPool("EarlyPool", nil)
	require.NoError(t, err)
	assert.Equal(t, 3, config.ThreadPoolCoreSize.In(pool).Get(), "the pool's values set in code apply too")
}
