package bulkhead_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// newRegistry returns a registry over a fresh store with a memory source, closed at the
// end of the test.
func newRegistry(t *testing.T) (*bulkhead.PoolRegistry, *config.MemorySource) {
	src := config.NewMemorySource()
	store := config.NewStore(src)
	t.Cleanup(store.Close)
	r := bulkhead.NewPoolRegistry(store, clock.NewFake(time.Unix(0, 0)))
	t.Cleanup(r.Close)
	return r, src
}

// block submits a task that runs until the returned func is called (at the latest at the
// end of the test) and waits for it to start.
func block(t *testing.T, p *bulkhead.Pool) (free func()) {
	t.Helper()
	started, release := make(chan struct{}), make(chan struct{})
	require.NoError(t, p.Submit(func() { close(started); <-release }))
	bulkhead.Await(t, started, "the blocking task started")
	done := false
	free = func() {
		if !done {
			done = true
			close(release)
		}
	}
	t.Cleanup(free)
	return free
}

func TestPoolRegistryGetOrCreatePerKey(t *testing.T) {
	r, _ := newRegistry(t)
	b, err := r.Get("B", nil)
	require.NoError(t, err)
	a, err := r.Get("A", nil)
	require.NoError(t, err)
	again, err := r.Get("A", config.ThreadPoolOverrides{"coreSize": "1"})
	require.NoError(t, err)

	assert.Same(t, a, again, "one pool per key; the first creation wins")
	assert.NotSame(t, a, b)
	assert.Equal(t, "A", a.Key())
	assert.Equal(t, []*bulkhead.Pool{a, b}, r.Pools(), "sorted by key")
	g := a.Gauges()
	assert.Equal(t, 10, g.CorePoolSize, "Hystrix default coreSize")
	assert.Equal(t, 10, g.MaximumPoolSize)
}

func TestPoolRegistryUsesInCodeOverrides(t *testing.T) {
	r, _ := newRegistry(t)
	p, err := r.Get("small", config.ThreadPoolOverrides{"coreSize": "1"})
	require.NoError(t, err)
	assert.Equal(t, 1, p.Gauges().CorePoolSize)
	block(t, p)
	require.ErrorIs(t, p.Submit(func() {}), isolation.ErrRejected, "hand-off only by default")
}

func TestPoolRegistryRejectsBadConfig(t *testing.T) {
	r, _ := newRegistry(t)
	_, err := r.Get("bad", config.ThreadPoolOverrides{"noSuchProperty": "1"})
	require.ErrorIs(t, err, config.ErrUnknownProperty)
	assert.Contains(t, err.Error(), `"bad"`)
	assert.Empty(t, r.Pools())
}

func TestPoolPropertiesAreDynamic(t *testing.T) {
	r, src := newRegistry(t)
	src.Apply(map[string]string{
		"hystrix.threadpool.dyn.coreSize":                    "1",
		"hystrix.threadpool.dyn.maxQueueSize":                "10",
		"hystrix.threadpool.dyn.queueSizeRejectionThreshold": "1",
	}, nil)
	p, err := r.Get("dyn", nil)
	require.NoError(t, err)
	block(t, p)
	require.NoError(t, p.Submit(func() {}))
	require.ErrorIs(t, p.Submit(func() {}), isolation.ErrRejected, "threshold 1 reached")

	src.Set("hystrix.threadpool.dyn.queueSizeRejectionThreshold", "3")
	require.NoError(t, p.Submit(func() {}))
	src.Set("hystrix.threadpool.dyn.coreSize", "2") // a second worker starts before queueing
	block(t, p)
	assert.Equal(t, metrics.ThreadPoolGauges{ActiveCount: 2, QueueSize: 2, PoolSize: 2, LargestPoolSize: 2,
		CorePoolSize: 2, MaximumPoolSize: 2, TaskCount: 4}, p.Gauges())
}

func TestPoolRegistryCloseClosesEveryPool(t *testing.T) {
	r, _ := newRegistry(t)
	a, err := r.Get("A", nil)
	require.NoError(t, err)
	b, err := r.Get("B", nil)
	require.NoError(t, err)
	freeA := block(t, a)
	ran := make(chan struct{})
	require.NoError(t, b.Submit(func() { close(ran) }))
	bulkhead.Await(t, ran, "the task ran")

	closed := make(chan struct{})
	go func() {
		r.Close()
		close(closed)
	}()
	require.Eventually(t, func() bool { return errors.Is(b.Submit(func() {}), bulkhead.ErrClosed) }, time.Second, 100*time.Microsecond)
	require.ErrorIs(t, a.Submit(func() {}), bulkhead.ErrClosed, "all pools stop accepting at once")
	freeA()
	bulkhead.Await(t, closed, "Close returned")
	assert.Zero(t, a.Gauges().PoolSize)
	assert.Zero(t, b.Gauges().PoolSize)
	_, err = r.Get("A", nil)
	require.ErrorIs(t, err, bulkhead.ErrClosed)
	assert.Len(t, r.Pools(), 2)
	r.Close() // idempotent
}

func TestEvictClosesAndForgetsThePool(t *testing.T) {
	r, _ := newRegistry(t)
	old, err := r.Get("A", nil)
	require.NoError(t, err)
	ran := make(chan struct{})
	require.NoError(t, old.Submit(func() { close(ran) }))
	bulkhead.Await(t, ran, "the task ran")
	require.Eventually(t, func() bool { return old.Gauges().ActiveCount == 0 }, time.Second, 100*time.Microsecond,
		"the worker went idle once its task returned") // else the next task starts a second one
	require.Equal(t, 1, old.Gauges().PoolSize)

	free := block(t, old) // a task still running: Evict does not wait for it
	r.Evict("A")
	r.Evict("unknown")
	assert.True(t, old.Closed())
	assert.Equal(t, 1, old.Gauges().PoolSize, "a worker busy with a task exits when the task ends")
	free()
	old.Close()
	assert.Zero(t, old.Gauges().PoolSize)
	assert.ErrorIs(t, old.Submit(func() {}), bulkhead.ErrClosed)
	assert.Empty(t, r.Pools())

	fresh, err := r.Get("A", nil)
	require.NoError(t, err)
	assert.NotSame(t, old, fresh)
	assert.False(t, fresh.Closed())
	done := make(chan struct{})
	require.NoError(t, fresh.Submit(func() { close(done) }), "a fresh, working pool")
	bulkhead.Await(t, done, "the task ran")
}

func TestDefaultRegistryIsProcessWide(t *testing.T) {
	assert.Same(t, bulkhead.Default(), bulkhead.Default())
}

func TestSemaphoreFollowsItsConfigProperty(t *testing.T) {
	src := config.NewMemorySource()
	store := config.NewStore(src)
	t.Cleanup(store.Close)
	cp, err := store.Command("cmd", config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "1"})
	require.NoError(t, err)
	s := bulkhead.NewSemaphore(config.ExecutionMaxConcurrentRequests.In(cp))

	require.True(t, s.TryAcquire())
	require.False(t, s.TryAcquire())
	src.Set("hystrix.command.cmd.execution.isolation.semaphore.maxConcurrentRequests", "2")
	require.True(t, s.TryAcquire(), "the new limit applies at once")
	assert.Equal(t, 2, s.InUse())
	s.Release()
	s.Release()
	assert.Panics(t, func() { bulkhead.NewSemaphore(nil) })
}
