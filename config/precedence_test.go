package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const timeoutName = "execution.isolation.thread.timeoutInMilliseconds"

func TestCommandPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dynKey string // hystrix.command.P.X
		inCode string
		dynDef string // hystrix.command.default.X
		want   time.Duration
	}{
		{name: "built-in default", want: time.Second},
		{name: "dynamic default beats built-in", dynDef: "300", want: 300 * time.Millisecond},
		{name: "in code beats dynamic default", inCode: "200", dynDef: "300", want: 200 * time.Millisecond},
		{name: "dynamic key beats in code", dynKey: "100", inCode: "200", dynDef: "300", want: 100 * time.Millisecond},
		{name: "dynamic key beats dynamic default", dynKey: "100", dynDef: "300", want: 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := NewMemorySource()
			if tc.dynKey != "" {
				mem.Set("hystrix.command.P."+timeoutName, tc.dynKey)
			}
			if tc.dynDef != "" {
				mem.Set("hystrix.command.default."+timeoutName, tc.dynDef)
			}
			var inCode Overrides
			if tc.inCode != "" {
				inCode = Overrides{timeoutName: tc.inCode}
			}
			store := NewStore(mem)
			defer store.Close()
			c, err := store.Command("P", inCode)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ExecutionTimeout.In(c).Get())
		})
	}
}

func TestPrecedenceWalksDownOnDelete(t *testing.T) {
	mem := NewMemorySource()
	mem.Apply(map[string]string{
		"hystrix.command.W." + timeoutName:       "100",
		"hystrix.command.default." + timeoutName: "300",
	}, nil)
	store := NewStore(mem)
	defer store.Close()
	c, err := store.Command("W", Overrides{timeoutName: "200"})
	require.NoError(t, err)
	assert.Equal(t, 100*time.Millisecond, ExecutionTimeout.In(c).Get())
	mem.Apply(nil, []string{"hystrix.command.W." + timeoutName})
	assert.Equal(t, 200*time.Millisecond, ExecutionTimeout.In(c).Get())

	other, err := store.Command("Other", nil)
	require.NoError(t, err)
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(other).Get())
	mem.Apply(nil, []string{"hystrix.command.default." + timeoutName})
	assert.Equal(t, time.Second, ExecutionTimeout.In(other).Get())
	assert.Equal(t, 200*time.Millisecond, ExecutionTimeout.In(c).Get())
}

func TestThreadPoolAndCollapserPrecedence(t *testing.T) {
	mem := NewMemorySource()
	mem.Apply(map[string]string{
		"hystrix.threadpool.default.coreSize":                "30",
		"hystrix.threadpool.A.coreSize":                      "40",
		"hystrix.collapser.default.timerDelayInMilliseconds": "30",
		"hystrix.collapser.A.timerDelayInMilliseconds":       "40",
	}, nil)
	store := NewStore(mem)
	defer store.Close()

	a, err := store.ThreadPool("A", ThreadPoolOverrides{"coreSize": "20"})
	require.NoError(t, err)
	b, err := store.ThreadPool("B", ThreadPoolOverrides{"coreSize": "20"})
	require.NoError(t, err)
	c, err := store.ThreadPool("C", nil)
	require.NoError(t, err)
	assert.Equal(t, []int{40, 20, 30}, []int{ThreadPoolCoreSize.In(a).Get(), ThreadPoolCoreSize.In(b).Get(), ThreadPoolCoreSize.In(c).Get()})

	ca, err := store.Collapser("A", CollapserOverrides{"timerDelayInMilliseconds": "20"})
	require.NoError(t, err)
	cb, err := store.Collapser("B", CollapserOverrides{"timerDelayInMilliseconds": "20"})
	require.NoError(t, err)
	cc, err := store.Collapser("C", nil)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{40 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond},
		[]time.Duration{CollapserTimerDelay.In(ca).Get(), CollapserTimerDelay.In(cb).Get(), CollapserTimerDelay.In(cc).Get()})
}

func TestEarlierSourceWins(t *testing.T) {
	first, second := NewMemorySource(), NewMemorySource()
	first.Set("hystrix.command.default."+timeoutName, "111")
	second.Set("hystrix.command.default."+timeoutName, "222")
	second.Set("hystrix.command.default.fallback.enabled", "false")
	store := NewStore(first, second)
	defer store.Close()
	c, err := store.Command("S", nil)
	require.NoError(t, err)
	assert.Equal(t, 111*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.False(t, FallbackEnabled.In(c).Get(), "a name only the later source has still applies")

	first.Apply(nil, []string{"hystrix.command.default." + timeoutName})
	assert.Equal(t, 222*time.Millisecond, ExecutionTimeout.In(c).Get())
}

func TestKeyInLaterSourceBeatsDefaultInEarlierSource(t *testing.T) {
	first, second := NewMemorySource(), NewMemorySource()
	first.Set("hystrix.command.default."+timeoutName, "111")
	second.Set("hystrix.command.K."+timeoutName, "222")
	store := NewStore(first, second)
	defer store.Close()
	c, err := store.Command("K", nil)
	require.NoError(t, err)
	assert.Equal(t, 222*time.Millisecond, ExecutionTimeout.In(c).Get())
}

func TestFirstCreationWins(t *testing.T) {
	store := NewStore()
	a, err := store.Command("Once", Overrides{timeoutName: "100"})
	require.NoError(t, err)
	b, err := store.Command("Once", Overrides{timeoutName: "999"})
	require.NoError(t, err)
	assert.Same(t, a, b)
	assert.Equal(t, 100*time.Millisecond, ExecutionTimeout.In(b).Get())

	p1, err := store.ThreadPool("Once", nil)
	require.NoError(t, err)
	p2, err := store.ThreadPool("Once", ThreadPoolOverrides{"coreSize": "1"})
	require.NoError(t, err)
	assert.Same(t, p1, p2)
	c1, err := store.Collapser("Once", nil)
	require.NoError(t, err)
	c2, err := store.Collapser("Once", nil)
	require.NoError(t, err)
	assert.Same(t, c1, c2)
}

func TestStoresAreIndependent(t *testing.T) {
	a, err := NewStore().Command("X", Overrides{timeoutName: "100"})
	require.NoError(t, err)
	b, err := NewStore().Command("X", nil)
	require.NoError(t, err)
	assert.Equal(t, 100*time.Millisecond, ExecutionTimeout.In(a).Get())
	assert.Equal(t, time.Second, ExecutionTimeout.In(b).Get())
}

func TestListings(t *testing.T) {
	store := NewStore()
	for _, k := range []string{"b", "a"} {
		_, err := store.Command(k, nil)
		require.NoError(t, err)
		_, err = store.ThreadPool(k, nil)
		require.NoError(t, err)
		_, err = store.Collapser(k, nil)
		require.NoError(t, err)
	}
	keys := func(n int, key func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = key(i)
		}
		return out
	}
	cs, ps, ls := store.Commands(), store.ThreadPools(), store.Collapsers()
	assert.Equal(t, []string{"a", "b"}, keys(len(cs), func(i int) string { return cs[i].Key() }))
	assert.Equal(t, []string{"a", "b"}, keys(len(ps), func(i int) string { return ps[i].Key() }))
	assert.Equal(t, []string{"a", "b"}, keys(len(ls), func(i int) string { return ls[i].Key() }))
}

func TestEmptyKey(t *testing.T) {
	store := NewStore()
	_, err := store.Command("", nil)
	assert.ErrorIs(t, err, ErrEmptyKey)
	_, err = store.ThreadPool("", nil)
	assert.ErrorIs(t, err, ErrEmptyKey)
	_, err = store.Collapser("", nil)
	assert.ErrorIs(t, err, ErrEmptyKey)
}

func TestDefaultStore(t *testing.T) {
	assert.Same(t, Default(), Default())
	c, err := Default().Command("config.TestDefaultStore", nil)
	require.NoError(t, err)
	assert.Equal(t, time.Second, ExecutionTimeout.In(c).Get())
	DefaultSource().Set("hystrix.command.config.TestDefaultStore."+timeoutName, "42")
	defer DefaultSource().Apply(nil, []string{"hystrix.command.config.TestDefaultStore." + timeoutName})
	assert.Equal(t, 42*time.Millisecond, ExecutionTimeout.In(c).Get())
}
