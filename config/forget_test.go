package config

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForgetStartsOver(t *testing.T) {
	_, store, _ := newTestStore(t)
	old, err := store.Command("F", Overrides{timeoutName: "100"})
	require.NoError(t, err)
	assert.False(t, store.ForgetCommand("Other"))
	assert.False(t, store.ForgetThreadPool("F"), "scopes are separate")
	assert.True(t, store.ForgetCommand("F"))
	assert.False(t, store.ForgetCommand("F"), "already forgotten")
	assert.Empty(t, store.Commands())

	c, err := store.Command("F", Overrides{timeoutName: "200"})
	require.NoError(t, err)
	assert.NotSame(t, old, c)
	assert.Equal(t, 200*time.Millisecond, ExecutionTimeout.In(c).Get(), "first creation wins again")
	assert.Equal(t, 100*time.Millisecond, ExecutionTimeout.In(old).Get(), "the old holder keeps its values")
	assert.Equal(t, []*CommandProperties{c}, store.Commands())
	same, err := store.Command("F", Overrides{timeoutName: "300"})
	require.NoError(t, err)
	assert.Same(t, c, same)

	_, err = store.ThreadPool("F", nil)
	require.NoError(t, err)
	_, err = store.Collapser("F", nil)
	require.NoError(t, err)
	assert.True(t, store.ForgetThreadPool("F"))
	assert.True(t, store.forgetCollapser("F"))
	assert.Empty(t, store.ThreadPools())
	assert.Empty(t, store.Collapsers())
	assert.Len(t, store.Commands(), 1)
}

// A peek resolves a key's properties from the sources without fixing them: the key's
// definition, after the peek, still makes them with its values set in code.
func TestPeekFixesNothing(t *testing.T) {
	mem, store, _ := newTestStore(t)
	mem.Set("hystrix.command.P.metrics.rollingStats.timeInMilliseconds", "20000")
	peeked, err := store.PeekCommand("P")
	require.NoError(t, err)
	assert.Equal(t, 20*time.Second, RollingStatsWindow.In(peeked).Get(), "the sources' values")
	assert.Empty(t, store.Commands(), "the store keeps nothing")

	c, err := store.Command("P", Overrides{timeoutName: "100"})
	require.NoError(t, err)
	assert.Equal(t, 100*time.Millisecond, ExecutionTimeout.In(c).Get(), "the definition's values set in code")
	held, err := store.PeekCommand("P")
	require.NoError(t, err)
	assert.Same(t, c, held, "a peek after the definition gets what it made")

	mem.Set("hystrix.command.P.metrics.rollingStats.timeInMilliseconds", "30000")
	assert.Equal(t, 30*time.Second, RollingStatsWindow.In(peeked).Get(), "peeked properties follow the sources")

	for _, peek := range []func() (any, error){
		func() (any, error) { return store.PeekThreadPool("P") },
		func() (any, error) { return store.PeekCollapser("P") },
	} {
		_, err := peek()
		require.NoError(t, err)
	}
	assert.Empty(t, store.ThreadPools())
	assert.Empty(t, store.Collapsers())
	_, err = store.PeekCommand("")
	assert.ErrorIs(t, err, ErrEmptyKey)
}

func TestForgottenPropertiesKeepFollowingSources(t *testing.T) {
	mem, store, log := newTestStore(t)
	old, err := store.Command("Z", nil)
	require.NoError(t, err)
	timeout := ExecutionTimeout.In(old) // a holder of one Property only
	require.True(t, store.ForgetCommand("Z"))

	mem.Set("hystrix.command.Z.circuitBreaker.forceOpen", "true")
	mem.Set("hystrix.command.Z."+timeoutName, "250")
	assert.True(t, CircuitBreakerForceOpen.In(old).Get())
	old = nil
	runtime.GC()
	assert.Equal(t, 250*time.Millisecond, timeout.Get())
	assert.Equal(t, "hystrix.command.Z."+timeoutName, timeout.Name())

	mem.Set("hystrix.command.Z."+timeoutName, "x")
	assert.Equal(t, 250*time.Millisecond, timeout.Get())
	assert.Len(t, log.take(), 1, "reported while the key is not held again")

	c, err := store.Command("Z", nil)
	require.NoError(t, err)
	assert.Len(t, log.take(), 1, "the new properties report the bad value")
	mem.Set("hystrix.command.Z."+timeoutName, "y")
	assert.Len(t, log.take(), 1, "once, not once per generation")
	mem.Set("hystrix.command.Z."+timeoutName, "300")
	assert.Equal(t, 300*time.Millisecond, timeout.Get())
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())
	assert.Empty(t, log.take())
	runtime.KeepAlive(timeout)
}

func TestForgottenUnreferencedPropertiesAreDropped(t *testing.T) {
	mem, store, _ := newTestStore(t)
	for i := range 100 {
		_, err := store.Command(fmt.Sprint("U", i), nil)
		require.NoError(t, err)
	}
	for i := range 100 {
		require.True(t, store.ForgetCommand(fmt.Sprint("U", i)))
	}
	runtime.GC()
	mem.Set("hystrix.command.default.fallback.enabled", "false")
	store.mu.RLock()
	defer store.mu.RUnlock()
	assert.Empty(t, store.forgotten)
	assert.Empty(t, store.sets)
	assert.Empty(t, store.commands)
}

func TestForgetCompactsInCreationOrder(t *testing.T) {
	mem, store, _ := newTestStore(t)
	for i := range 10 {
		_, err := store.Command(fmt.Sprint("K", i), nil)
		require.NoError(t, err)
	}
	for _, i := range []int{0, 3, 6, 9, 1, 2} { // the 6th forces a compaction
		require.True(t, store.ForgetCommand(fmt.Sprint("K", i)))
	}
	_, err := store.Command("K0", nil)
	require.NoError(t, err)
	require.True(t, store.ForgetCommand("K5"))

	store.mu.RLock()
	var keys []string
	for i, k := range store.sets {
		if k != nil {
			assert.Equal(t, i, k.state().idx)
			keys = append(keys, k.state().key)
		}
	}
	assert.Len(t, store.commands, 4)
	store.mu.RUnlock()
	assert.Equal(t, []string{"K4", "K7", "K8", "K0"}, keys, "creation order")

	mem.Set("hystrix.command.K8."+timeoutName, "42")
	c, err := store.Command("K8", nil)
	require.NoError(t, err)
	assert.Equal(t, 42*time.Millisecond, ExecutionTimeout.In(c).Get())
}

func TestForgetConcurrent(t *testing.T) {
	mem, store, _ := newTestStore(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				k := fmt.Sprint("C", i%17)
				c, err := store.Command(k, nil)
				if !assert.NoError(t, err) {
					return
				}
				_ = ExecutionTimeout.In(c).Get()
				if i%3 == g%3 {
					store.ForgetCommand(k)
				}
				if i%50 == 0 {
					mem.Set("hystrix.command.default."+timeoutName, fmt.Sprint(100+i))
				}
			}
		})
	}
	wg.Wait()
	mem.Set("hystrix.command.default."+timeoutName, "777")
	for _, c := range store.Commands() {
		assert.Equal(t, 777*time.Millisecond, ExecutionTimeout.In(c).Get())
	}
}
