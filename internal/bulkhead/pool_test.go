package bulkhead

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPoolNeverRunsMoreThanItsSizeUnderLoad(t *testing.T) {
	tests := []struct {
		name    string
		cfg     poolConfig
		maxSize int
	}{
		{"hand-off", poolConfig{core: 4, maximum: 4, queue: -1}, 4},
		{"queue", poolConfig{core: 3, maximum: 3, queue: 5, threshold: 5}, 3},
		{"diverging", poolConfig{core: 2, maximum: 5, diverge: true, queue: 4, threshold: 100}, 5},
		{"maximum ignored", poolConfig{core: 2, maximum: 5, queue: -1}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const submitters, perSubmitter = 16, 300
			tp := newTestPool(t, tt.cfg)
			var running, maxRunning, ran, accepted, rejected atomic.Int64
			var maxQueue atomic.Int64
			task := func() {
				n := running.Add(1)
				for m := maxRunning.Load(); n > m && !maxRunning.CompareAndSwap(m, n); m = maxRunning.Load() {
				}
				time.Sleep(time.Microsecond) // hold the worker briefly so that submissions overlap
				running.Add(-1)
				ran.Add(1)
			}
			var wg sync.WaitGroup
			for range submitters {
				wg.Go(func() {
					for range perSubmitter {
						if err := tp.Submit(task); err != nil {
							require.ErrorIs(t, err, isolation.ErrRejected)
							rejected.Add(1)
						} else {
							accepted.Add(1)
						}
						if q := int64(tp.Gauges().QueueSize); q > maxQueue.Load() {
							maxQueue.Store(q)
						}
					}
				})
			}
			wg.Wait()
			tp.Close()

			g := tp.Gauges()
			assert.LessOrEqual(t, maxRunning.Load(), int64(tt.maxSize), "concurrent tasks")
			assert.LessOrEqual(t, g.LargestPoolSize, tt.maxSize, "largest pool size")
			assert.LessOrEqual(t, maxQueue.Load(), int64(max(tt.cfg.queue, 0)), "queue size")
			assert.Equal(t, int64(submitters*perSubmitter), accepted.Load()+rejected.Load())
			assert.Equal(t, accepted.Load(), ran.Load(), "every accepted task ran")
			assert.Equal(t, accepted.Load(), g.TaskCount)
			assert.Equal(t, accepted.Load(), g.CompletedTaskCount)
			assert.Equal(t, 0, g.PoolSize, "all workers exited on Close")
		})
	}
}

func TestPoolRunsUpToItsSizeConcurrently(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 3, maximum: 3, queue: -1})
	hs := []*held{tp.hold(t), tp.hold(t), tp.hold(t)}
	for _, h := range hs {
		h.waitStarted(t) // all three run at once: each waits for its own release
	}
}

func TestPoolHandOffRejectsWhenNoWorkerIsFree(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 2, maximum: 2, queue: -1, threshold: 0})
	a, b := tp.hold(t), tp.hold(t)
	a.waitStarted(t)
	b.waitStarted(t)

	requireRejected(t, tp.Submit(func() {}), reasonHandOff)
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 2, PoolSize: 2, LargestPoolSize: 2,
		CorePoolSize: 2, MaximumPoolSize: 2, TaskCount: 2})

	a.free()
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, PoolSize: 2, LargestPoolSize: 2,
		CorePoolSize: 2, MaximumPoolSize: 2, CompletedTaskCount: 1, TaskCount: 2})
	c := tp.hold(t) // handed to the idle worker: no new worker
	c.waitStarted(t)
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 2, PoolSize: 2, LargestPoolSize: 2,
		CorePoolSize: 2, MaximumPoolSize: 2, CompletedTaskCount: 1, TaskCount: 3})
	requireRejected(t, tp.Submit(func() {}), reasonHandOff)
}

func TestPoolQueueLimitRejects(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: 3, threshold: 10})
	first := tp.hold(t)
	first.waitStarted(t)
	var order []int
	var mu sync.Mutex
	for i := range 3 {
		require.NoError(t, tp.Submit(func() { mu.Lock(); order = append(order, i); mu.Unlock() }))
	}
	requireRejected(t, tp.Submit(func() {}), reasonQueueFull)
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, QueueSize: 3, PoolSize: 1, LargestPoolSize: 1,
		CorePoolSize: 1, MaximumPoolSize: 1, TaskCount: 4})

	first.free()
	tp.Close() // runs the queued tasks before it returns
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []int{0, 1, 2}, order, "queued tasks run in FIFO order")
}

func TestPoolQueueSizeRejectionThresholdIsDynamic(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: 10, threshold: 2})
	first := tp.hold(t)
	first.waitStarted(t)
	require.NoError(t, tp.Submit(func() {}))
	require.NoError(t, tp.Submit(func() {}))
	requireRejected(t, tp.Submit(func() {}), reasonThreshold)

	tp.threshold.Set(4) // upward: two more fit
	require.NoError(t, tp.Submit(func() {}))
	require.NoError(t, tp.Submit(func() {}))
	requireRejected(t, tp.Submit(func() {}), reasonThreshold)
	assert.Equal(t, 4, tp.Gauges().QueueSize)

	tp.threshold.Set(1) // downward: the queue must drain below 1 first
	requireRejected(t, tp.Submit(func() {}), reasonThreshold)

	tp.threshold.Set(0) // Hystrix: queue size < 0 is never true, so a queued pool rejects all
	first.free()
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 1, LargestPoolSize: 1, CorePoolSize: 1,
		MaximumPoolSize: 1, CompletedTaskCount: 5, TaskCount: 5})
	requireRejected(t, tp.Submit(func() {}), reasonThreshold)
}

func TestPoolMaximumSizeDivergence(t *testing.T) {
	tests := []struct {
		name          string
		core, maximum int
		diverge       bool
		want          int
	}{
		{"maximum ignored without divergence", 2, 4, false, 2},
		{"maximum used with divergence", 2, 4, true, 4},
		{"maximum below core counts as core", 3, 1, true, 3},
		{"maximum below core without divergence", 3, 1, false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newTestPool(t, poolConfig{core: tt.core, maximum: tt.maximum, diverge: tt.diverge, queue: -1})
			g := tp.Gauges()
			assert.Equal(t, tt.core, g.CorePoolSize)
			assert.Equal(t, tt.want, g.MaximumPoolSize)
			for range tt.want {
				tp.hold(t).waitStarted(t)
			}
			requireRejected(t, tp.Submit(func() {}), reasonHandOff)
			assert.Equal(t, tt.want, tp.Gauges().PoolSize)
		})
	}
}

func TestPoolExtraWorkersStartOnlyWhenTheQueueIsFull(t *testing.T) {
	// ThreadPoolExecutor order: core workers, then the queue, then workers up to the maximum.
	tp := newTestPool(t, poolConfig{core: 1, maximum: 3, diverge: true, queue: 2, threshold: 10})
	tp.hold(t).waitStarted(t)
	require.NoError(t, tp.Submit(func() {}))
	require.NoError(t, tp.Submit(func() {}))
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, QueueSize: 2, PoolSize: 1, LargestPoolSize: 1,
		CorePoolSize: 1, MaximumPoolSize: 3, TaskCount: 3})
	b, c := tp.hold(t), tp.hold(t)
	b.waitStarted(t)
	c.waitStarted(t)
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 3, QueueSize: 2, PoolSize: 3, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 3, TaskCount: 5})
	requireRejected(t, tp.Submit(func() {}), reasonQueueFull)
}

func TestPoolLoweringTheMaximumRetiresWorkers(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 3, diverge: true, queue: -1, keepAlive: time.Minute})
	hs := []*held{tp.hold(t), tp.hold(t), tp.hold(t)}
	for _, h := range hs {
		h.waitStarted(t)
	}
	tp.diverge.Set(false) // effective maximum 1 while 3 run
	requireRejected(t, tp.Submit(func() {}), reasonHandOff)
	hs[0].free() // a busy worker above the maximum exits when its task ends
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 2, PoolSize: 2, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 1, CompletedTaskCount: 1, TaskCount: 3})

	tp.diverge.Set(true)
	hs[1].free() // idle now, above core: waits for keepAlive
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, PoolSize: 2, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 3, CompletedTaskCount: 2, TaskCount: 3})
	tp.diverge.Set(false)
	ran := make(chan struct{})
	// The next Submit sees 2 workers above the maximum 1: it retires the idle one at once,
	// and the busy one cannot take the task.
	requireRejected(t, tp.Submit(func() { close(ran) }), reasonHandOff)
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, PoolSize: 1, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 1, CompletedTaskCount: 2, TaskCount: 3})
	hs[2].free()
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 1, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 1, CompletedTaskCount: 3, TaskCount: 3})
	require.NoError(t, tp.Submit(func() { close(ran) }))
	Await(t, ran, "the task ran")
}

func TestPoolWorkersAboveALoweredMaximumLeaveTheQueueAlone(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 3, diverge: true, queue: 2, threshold: 10})
	first := tp.hold(t)
	first.waitStarted(t)
	var queuedRunning, maxQueuedRunning atomic.Int64
	queued := func() {
		n := queuedRunning.Add(1)
		if n > maxQueuedRunning.Load() {
			maxQueuedRunning.Store(n)
		}
		queuedRunning.Add(-1)
	}
	require.NoError(t, tp.Submit(queued))
	require.NoError(t, tp.Submit(queued))
	extra := []*held{tp.hold(t), tp.hold(t)} // the queue is full: workers 2 and 3 start
	for _, h := range extra {
		h.waitStarted(t)
	}
	tp.diverge.Set(false) // effective maximum 1
	for _, h := range extra {
		h.free()
	}
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, QueueSize: 2, PoolSize: 1, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 1, CompletedTaskCount: 2, TaskCount: 5})
	first.free() // the one worker within the maximum drains the queue
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 1, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 1, CompletedTaskCount: 5, TaskCount: 5})
	assert.Equal(t, int64(1), maxQueuedRunning.Load())
}

func TestPoolKeepAliveReapsWorkersAboveCore(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 3, diverge: true, queue: -1, keepAlive: time.Minute})
	hs := []*held{tp.hold(t), tp.hold(t), tp.hold(t)}
	for _, h := range hs {
		h.waitStarted(t)
	}
	assert.Equal(t, 0, tp.clk.Pending(), "no reaper while every worker is busy")
	for _, h := range hs {
		h.free()
	}
	idle := metrics.ThreadPoolGauges{PoolSize: 3, LargestPoolSize: 3, CorePoolSize: 1, MaximumPoolSize: 3,
		CompletedTaskCount: 3, TaskCount: 3}
	requireGauges(t, tp.Pool, idle)
	assert.Equal(t, 1, tp.clk.Pending(), "one reaper timer per pool")

	tp.clk.Advance(time.Minute - time.Second)
	assert.Equal(t, idle, tp.Gauges(), "not idle for keepAlive yet")
	tp.clk.Advance(time.Second)
	idle.PoolSize = 1
	assert.Equal(t, idle, tp.Gauges(), "workers above core retired")
	assert.Equal(t, 0, tp.clk.Pending(), "reaper disarmed at core size")

	tp.clk.Advance(time.Hour)
	assert.Equal(t, idle, tp.Gauges(), "the core worker stays")
}

func TestPoolKeepAliveCountsFromEachWorkersIdleStart(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 3, diverge: true, queue: -1, keepAlive: time.Minute})
	hs := []*held{tp.hold(t), tp.hold(t), tp.hold(t)}
	for _, h := range hs {
		h.waitStarted(t)
	}
	hs[0].free()
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 2, PoolSize: 3, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 3, CompletedTaskCount: 1, TaskCount: 3})
	tp.clk.Advance(30 * time.Second)
	hs[1].free()
	hs[2].free()
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 3, LargestPoolSize: 3,
		CorePoolSize: 1, MaximumPoolSize: 3, CompletedTaskCount: 3, TaskCount: 3})

	tp.clk.Advance(30 * time.Second) // the first idle worker reaches keepAlive
	assert.Equal(t, 2, tp.Gauges().PoolSize)
	assert.Equal(t, 1, tp.clk.Pending(), "re-armed for the next worker")
	tp.clk.Advance(30 * time.Second)
	assert.Equal(t, 1, tp.Gauges().PoolSize)
}

func TestPoolLoweringCore(t *testing.T) {
	tests := []struct {
		name        string
		diverge     bool
		wantMaximum int
		wantPending int // reaper armed
		wantPool    int // right after the Submit that notices the change
	}{
		// maximumSize 3 still applies: idle workers above the new core retire after keepAlive.
		{"with divergence idle workers retire after keepAlive", true, 3, 1, 3},
		// the maximum follows core: idle workers above it retire at once.
		{"without divergence the maximum drops too", false, 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newTestPool(t, poolConfig{core: 3, maximum: 3, diverge: tt.diverge, queue: -1, keepAlive: time.Minute})
			hs := []*held{tp.hold(t), tp.hold(t), tp.hold(t)}
			for _, h := range hs {
				h.waitStarted(t)
				h.free()
			}
			requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 3, LargestPoolSize: 3,
				CorePoolSize: 3, MaximumPoolSize: 3, CompletedTaskCount: 3, TaskCount: 3})
			assert.Equal(t, 0, tp.clk.Pending(), "core workers need no reaper")
			tp.clk.Advance(time.Hour) // idle within core: this time does not count

			tp.core.Set(1)
			done := make(chan struct{})
			require.NoError(t, tp.Submit(func() { close(done) })) // notices the change
			Await(t, done, "the task ran")
			requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: tt.wantPool, LargestPoolSize: 3,
				CorePoolSize: 1, MaximumPoolSize: tt.wantMaximum, CompletedTaskCount: 4, TaskCount: 4})
			assert.Equal(t, tt.wantPending, tp.clk.Pending())
			tp.clk.Advance(time.Minute - time.Second)
			assert.Equal(t, tt.wantPool, tp.Gauges().PoolSize, "keepAlive runs from the change of core")
			tp.clk.Advance(time.Second)
			assert.Equal(t, 1, tp.Gauges().PoolSize)
		})
	}
}

func TestPoolKeepAliveRunsFromTheDecreaseOfCore(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 2, maximum: 3, diverge: true, queue: -1, keepAlive: time.Minute})
	a, b, c := tp.hold(t), tp.hold(t), tp.hold(t)
	for _, h := range []*held{a, b, c} {
		h.waitStarted(t)
	}
	a.free() // idle above core at 0s: the reaper is due at 60s
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 2, PoolSize: 3, LargestPoolSize: 3,
		CorePoolSize: 2, MaximumPoolSize: 3, CompletedTaskCount: 1, TaskCount: 3})
	require.Equal(t, 1, tp.clk.Pending())

	tp.clk.Advance(30 * time.Second)
	tp.diverge.Set(false) // maximum 2: b's worker exits when b ends
	b.free()
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{ActiveCount: 1, PoolSize: 2, LargestPoolSize: 3,
		CorePoolSize: 2, MaximumPoolSize: 2, CompletedTaskCount: 2, TaskCount: 3})
	c.free() // idle within core: no keepAlive yet
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 2, LargestPoolSize: 3,
		CorePoolSize: 2, MaximumPoolSize: 2, CompletedTaskCount: 3, TaskCount: 3})

	tp.diverge.Set(true)
	tp.core.Set(0) // c's worker is above core once the pool sees it (the reaper, at 60s)
	tp.clk.Advance(30 * time.Second)
	assert.Equal(t, 1, tp.Gauges().PoolSize, "a's worker retired at 60s, c's keeps its time")
	tp.clk.Advance(59 * time.Second)
	assert.Equal(t, 1, tp.Gauges().PoolSize)
	tp.clk.Advance(time.Second)
	assert.Equal(t, 0, tp.Gauges().PoolSize, "c's worker retired keepAlive after the reaper saw core drop")

	done := make(chan struct{})
	require.NoError(t, tp.Submit(func() { close(done) }), "an empty pool starts a worker again")
	Await(t, done, "the task ran")
}

func TestPoolGaugesStepByStep(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 2, maximum: 2, queue: 5, threshold: 2})
	g := metrics.ThreadPoolGauges{CorePoolSize: 2, MaximumPoolSize: 2}
	requireGauges(t, tp.Pool, g)

	a := tp.hold(t)
	a.waitStarted(t)
	g.ActiveCount, g.PoolSize, g.LargestPoolSize, g.TaskCount = 1, 1, 1, 1
	requireGauges(t, tp.Pool, g)

	b := tp.hold(t)
	b.waitStarted(t)
	g.ActiveCount, g.PoolSize, g.LargestPoolSize, g.TaskCount = 2, 2, 2, 2
	requireGauges(t, tp.Pool, g)

	c, d := tp.hold(t), tp.hold(t)
	g.QueueSize, g.TaskCount = 2, 4
	requireGauges(t, tp.Pool, g)

	requireRejected(t, tp.Submit(func() {}), reasonThreshold)
	requireGauges(t, tp.Pool, g) // a rejection changes no gauge

	a.free() // its worker takes c from the queue
	c.waitStarted(t)
	g.QueueSize, g.CompletedTaskCount = 1, 1
	requireGauges(t, tp.Pool, g)

	b.free()
	d.waitStarted(t)
	g.QueueSize, g.CompletedTaskCount = 0, 2
	requireGauges(t, tp.Pool, g)

	c.free()
	d.free()
	g.ActiveCount, g.CompletedTaskCount = 0, 4
	requireGauges(t, tp.Pool, g)

	tp.Close()
	g.PoolSize = 0
	requireGauges(t, tp.Pool, g)
}

func TestPoolCloseRunsQueuedTasksAndWaits(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 2, maximum: 2, queue: 4, threshold: 4})
	a, b := tp.hold(t), tp.hold(t)
	a.waitStarted(t)
	b.waitStarted(t)
	var queuedRan atomic.Int64
	for range 4 {
		require.NoError(t, tp.Submit(func() { queuedRan.Add(1) }))
	}

	closed := make(chan struct{})
	go func() {
		tp.Close()
		close(closed)
	}()
	require.Eventually(t, func() bool { return errors.Is(tp.Submit(func() {}), ErrClosed) }, time.Second, 100*time.Microsecond)
	err := tp.Submit(func() {})
	requireRejected(t, err, reasonClosed)
	require.ErrorIs(t, err, ErrClosed)
	select {
	case <-closed:
		t.Fatal("Close returned while tasks were still running")
	default:
	}

	a.free()
	b.free()
	Await(t, closed, "Close returned after the tasks ended")
	assert.Equal(t, int64(4), queuedRan.Load(), "queued tasks ran before Close returned")
	g := tp.Gauges()
	assert.Equal(t, 0, g.PoolSize)
	assert.Equal(t, int64(6), g.CompletedTaskCount)
	tp.Close() // idempotent
}

func TestPoolCloseStopsIdleWorkersAndTheReaper(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 4, diverge: true, queue: -1, keepAlive: time.Minute})
	hs := []*held{tp.hold(t), tp.hold(t), tp.hold(t)}
	for _, h := range hs {
		h.waitStarted(t)
		h.free()
	}
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 3, LargestPoolSize: 3, CorePoolSize: 1,
		MaximumPoolSize: 4, CompletedTaskCount: 3, TaskCount: 3})
	require.Equal(t, 1, tp.clk.Pending())
	tp.Close()
	assert.Equal(t, 0, tp.Gauges().PoolSize)
	assert.Equal(t, 0, tp.clk.Pending(), "reaper stopped")
}

func TestPoolSurvivesAPanickingTask(t *testing.T) {
	logs := captureLogs(t)
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: -1})
	require.NoError(t, tp.Submit(func() { panic("boom") }))
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 1, LargestPoolSize: 1, CorePoolSize: 1,
		MaximumPoolSize: 1, CompletedTaskCount: 1, TaskCount: 1})
	done := make(chan struct{})
	require.NoError(t, tp.Submit(func() { close(done) }))
	Await(t, done, "the task ran")
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 1, LargestPoolSize: 1, CorePoolSize: 1,
		MaximumPoolSize: 1, CompletedTaskCount: 2, TaskCount: 2})
	out := logs.String()
	assert.Contains(t, out, "task panicked")
	assert.Contains(t, out, "pool=test-pool")
	assert.Contains(t, out, "panic=boom")
}

func TestPoolSurvivesATaskThatEndsItsGoroutine(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: 2, threshold: 2})
	block := newHeld()
	require.NoError(t, tp.Submit(func() { block.run(); runtimeGoexit() }))
	t.Cleanup(block.free)
	block.waitStarted(t)
	done := make(chan struct{})
	require.NoError(t, tp.Submit(func() { close(done) })) // queued behind the Goexit task
	block.free()
	Await(t, done, "a replacement worker ran the queued task")
	requireGauges(t, tp.Pool, metrics.ThreadPoolGauges{PoolSize: 1, LargestPoolSize: 1, CorePoolSize: 1,
		MaximumPoolSize: 1, CompletedTaskCount: 2, TaskCount: 2})
}

func TestPoolSubmitNilTaskPanics(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: -1})
	assert.PanicsWithValue(t, "isolation: Submit of a nil task", func() { _ = tp.Submit(nil) })
}

func TestPoolEffectiveMaximumIsAtLeastOne(t *testing.T) {
	// As config.ThreadPoolProperties.EffectiveMaximumSize: never 0, even mid-change.
	tp := newTestPool(t, poolConfig{core: 0, maximum: 0, queue: -1})
	assert.Equal(t, 1, tp.Gauges().MaximumPoolSize)
	h := tp.hold(t)
	h.waitStarted(t)
	requireRejected(t, tp.Submit(func() {}), reasonHandOff)
}

func TestPoolCoreZeroWithQueueStillRuns(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 0, maximum: 1, diverge: true, queue: 5, threshold: 5})
	done := make(chan struct{})
	require.NoError(t, tp.Submit(func() { close(done) }))
	Await(t, done, "the task ran")
}

// finisher is a Finisher whose Finish records what the pool's gauges were then.
type finisher struct {
	p        *Pool
	run      func()
	finished chan metrics.ThreadPoolGauges
}

func (f *finisher) Run() { f.run() }

func (f *finisher) Finish() { f.finished <- f.p.Gauges() }

// Finish runs after Run however Run ended (returned, panicked, runtime.Goexit), once the
// pool counts the task completed and its worker no longer active: a caller woken by it
// that submits at once finds the worker idle.
func TestPoolFinishesATaskOnceItsWorkerIsIdle(t *testing.T) {
	_ = captureLogs(t)
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: -1})
	for i, run := range []func(){func() {}, func() { panic("boom") }, runtimeGoexit} {
		f := &finisher{p: tp.Pool, run: run, finished: make(chan metrics.ThreadPoolGauges, 1)}
		require.NoError(t, tp.SubmitTask(f))
		var g metrics.ThreadPoolGauges
		select {
		case g = <-f.finished:
		case <-time.After(2 * time.Second):
			t.Fatalf("task %d: not finished", i)
		}
		assert.Equal(t, int64(2*i+1), g.CompletedTaskCount, "task %d: counted completed before Finish (and the tasks before it)", i)
		assert.Zero(t, g.ActiveCount, "task %d: its worker idle (or gone) before Finish", i)
		if i < 2 {
			assert.Equal(t, 1, g.PoolSize, "task %d: the worker stays", i)
			done := make(chan struct{})
			require.NoError(t, tp.Submit(func() { close(done) }), "task %d: the one worker takes the next task at once", i)
			Await(t, done, "the next task ran")
			require.Eventually(t, func() bool { return tp.Gauges().ActiveCount == 0 }, time.Second, 100*time.Microsecond)
		}
	}
}

func TestPoolSubmitTaskNilPanics(t *testing.T) {
	tp := newTestPool(t, poolConfig{core: 1, maximum: 1, queue: -1})
	assert.PanicsWithValue(t, "isolation: SubmitTask of a nil task", func() { _ = tp.SubmitTask(nil) })
}
