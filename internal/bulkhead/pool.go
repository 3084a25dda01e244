package bulkhead

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Pool is the goroutine pool of one thread-pool key: Hystrix's thread pool, with the
// semantics of java.util.concurrent.ThreadPoolExecutor as Hystrix configures it.
//
// SubmitTask hands a task to an idle worker if there is one; else starts a worker if fewer than
// coreSize run; else queues it (only when maxQueueSize > 0); else starts a worker if fewer
// than the effective maximum size run; else rejects. With a queue, a SubmitTask is also
// rejected while the queue holds queueSizeRejectionThreshold tasks or more. SubmitTask never
// blocks.
//
// Dynamic: coreSize, maximumSize, allowMaximumSizeToDivergeFromCoreSize,
// queueSizeRejectionThreshold and keepAlive are re-read on every SubmitTask and whenever a
// worker goes idle. Lowering the maximum retires surplus workers when they finish their
// task (idle ones at the next SubmitTask); lowering coreSize lets idle workers above it retire
// keepAlive after the pool notices (next SubmitTask, task end or reaper run). maxQueueSize is
// fixed at creation (Hystrix cannot resize its queue either); queueSizeRejectionThreshold
// is the dynamic knob for the queue.
//
// Workers are started lazily, and an idle worker is always preferred to a new one (a
// ThreadPoolExecutor starts a new thread below coreSize even when others are idle; whether
// a task is accepted is the same). Workers above coreSize exit once idle for keepAlive,
// timed by the pool's clock.Clock with one timer per pool; the others stay until Close.
//
// A panicking task is recovered, logged with log/slog and counted as completed; the worker
// goes on. A Pool is safe for concurrent use.
type Pool struct {
	key    string
	set    poolSettings
	clk    clock.Clock
	logger *slog.Logger // for tasks that panic
	rej    rejections
	reapFn func()
	done   sync.WaitGroup // one per worker goroutine

	mu        sync.Mutex
	idle      []*worker // idle workers, longest idle first (LIFO reuse keeps few workers warm)
	core      int       // the coreSize adapt last saw
	queue     taskQueue
	workers   int // started and not yet retired: PoolSize
	active    int // workers holding a task: ActiveCount
	largest   int
	completed int64
	accepted  int64
	closed    atomic.Bool // written under mu; Closed reads it without
	reaper    clock.Timer // armed while idle workers above coreSize may need to retire
}

func newPool(key string, set poolSettings, clk clock.Clock) *Pool {
	p := &Pool{
		key:    key,
		set:    set,
		clk:    clk,
		rej:    newRejections(key, set.maxQueueSize > 0),
		logger: slog.Default(),
		queue:  newTaskQueue(max(set.maxQueueSize, 0)),
	}
	p.core, _ = set.sizes()
	p.reapFn = p.reap
	return p
}

// Key returns the thread-pool key.
func (p *Pool) Key() string { return p.key }

// Task is work a Pool runs on one of its workers: SubmitTask's argument. A value that is
// its own task (a pooled one) is handed to a worker without an allocation.
type Task interface {
	// Run does the work on the worker's goroutine.
	Run()
}

// Finisher is a Task that wants to know when its worker is done with it: Finish runs on
// the worker after Run however Run ended (returned, panicked, runtime.Goexit), once the
// pool counts the task completed and the worker idle (or gone), just before the worker
// waits for its next task. A caller woken by Finish that submits its next task at once
// finds the worker idle, and the worker parks right after waking it, as a goroutine
// reading a channel in a loop does (waking the caller from Run instead, the caller may
// find the worker still busy, or run on another core while it finishes). A panic in
// Finish is recovered and logged.
type Finisher interface {
	Task
	Finish()
}

// SubmitTask runs task.Run on a worker of the pool, or returns an error matching
// isolation.ErrRejected (an *isolation.RejectedError naming the pool and the reason; also
// ErrClosed after Close) without running it. It never blocks. SubmitTask panics if task is nil.
func (p *Pool) SubmitTask(task Task) error {
	if task == nil {
		panic("isolation: SubmitTask of a nil task")
	}
	core, maxSize := p.set.sizes()
	p.mu.Lock()
	if p.closed.Load() {
		p.mu.Unlock()
		return p.rej.closed
	}
	if p.adapt(core, maxSize) {
		p.armReaper()
	}
	if p.set.maxQueueSize > 0 && p.queue.len() >= p.set.queueSizeRejectionThreshold.Get() {
		p.mu.Unlock()
		return p.rej.threshold
	}
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.active++
		p.accepted++
		p.mu.Unlock()
		w.tasks <- task // buffered and empty: the worker was idle and only we hold it now
		return nil
	}
	switch {
	case p.workers < core:
		p.start(task)
	case p.workers > 0 && p.queue.push(task):
	case p.workers < maxSize:
		p.start(task)
	default:
		p.mu.Unlock()
		return p.rej.full
	}
	p.accepted++
	p.mu.Unlock()
	return nil
}

// Queues reports whether a task the pool accepts may wait in its queue (maxQueueSize > 0,
// fixed at creation); without a queue an accepted task goes to a worker at once (an idle
// one, or a new one).
func (p *Pool) Queues() bool { return p.set.maxQueueSize > 0 }

// Gauges returns the pool's gauges, read together under the pool's lock; the metrics
// package defines them, so pool metrics and dashboards read them without conversion.
func (p *Pool) Gauges() metrics.ThreadPoolGauges {
	core, maxSize := p.set.sizes()
	p.mu.Lock()
	defer p.mu.Unlock()
	return metrics.ThreadPoolGauges{
		ActiveCount:        p.active,
		QueueSize:          p.queue.len(),
		PoolSize:           p.workers,
		LargestPoolSize:    p.largest,
		CorePoolSize:       core,
		MaximumPoolSize:    maxSize,
		CompletedTaskCount: p.completed,
		TaskCount:          p.accepted,
	}
}

// Closed reports whether Close (or PoolRegistry.Evict) stopped the pool.
func (p *Pool) Closed() bool { return p.closed.Load() }

// Close stops the pool: from then on SubmitTask rejects (ErrClosed); running and queued tasks
// still run to the end; Close returns once every worker goroutine has exited. It is
// idempotent and safe to call concurrently; it must not be called from inside a task of
// the same pool (it would wait for itself).
func (p *Pool) Close() {
	p.shutdown()
	p.done.Wait()
}

// shutdown is the non-waiting half of Close: reject from now on, retire the idle workers,
// stop the reaper.
func (p *Pool) shutdown() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Load() {
		return
	}
	p.closed.Store(true)
	p.retire(len(p.idle))
	if p.reaper != nil {
		p.reaper.Stop()
		p.reaper = nil
	}
}

// adapt applies the current sizes to the idle workers after a dynamic change: idle workers
// above the maximum retire at once, and when coreSize went down, idle workers now above it
// start their keepAlive. It reports whether idle workers above coreSize wait for the
// reaper. p.mu is held.
func (p *Pool) adapt(core, maxSize int) bool {
	if n := min(p.workers-maxSize, len(p.idle)); n > 0 {
		p.retire(n)
	}
	above := p.workers > core && len(p.idle) > 0
	if above && core < p.core {
		now := p.clk.Now()
		for _, w := range p.idle {
			if w.idleSince.IsZero() {
				w.idleSince = now
			}
		}
	}
	p.core = core
	return above
}

// keepAlive returns the idle time after which a worker above coreSize retires.
func (p *Pool) keepAlive() time.Duration { return max(p.set.keepAlive.Get(), 0) }
