package command

import (
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// threadPool is THREAD isolation: it hands the run stage to the goroutine pool of the
// key's thread-pool key and suspends the chain. The pool worker, the timer
// and the caller race to resume it (claim): the worker when the run returns, the timer at
// the deadline (the caller gets the fallback at once while the run goes on unobserved),
// the caller when it goes away. On the way out it calls onThreadComplete once.
type threadPool struct{}

// thread is what a THREAD execution adds: the pool goroutine's state (Hystrix's
// ThreadState), guarded by mu.
type thread struct {
	tp      *metrics.ThreadPoolMetrics
	mu      sync.Mutex
	state   uint8         // threadQueued, threadStarted or threadEnded
	running bool          // the run is on the worker and has not returned
	started time.Duration // when the worker took the run
}

// Thread states: the run waits in the pool, runs, or is over for the command (it returned,
// or the caller stopped waiting for it).
const (
	threadQueued uint8 = iota
	threadStarted
	threadEnded
)

func (threadPool) enter(x *execution) verdict {
	pool, tp, err := x.ks.threadPool()
	if err == nil {
		x.thread = &thread{tp: tp}
		x.suspend()
		if x.timeout > 0 { // only now: the timer resumes a suspended chain
			x.ks.deadlines.add(x, x.start+x.timeout)
		}
		err = pool.Submit(x.work)
	}
	if err == nil {
		return suspended
	}
	if !x.claim(phaseCompleted) {
		return suspended // the timer or the caller won meanwhile and resumes the chain
	}
	x.unsuspend()
	x.addEvent(metrics.ThreadPoolRejected)
	x.failedErr = err
	return poolRejected
}

func (threadPool) exit(x *execution, v verdict) verdict {
	if v != cancelled { // on a cancel, terminal calls it after onUnsubscribe
		x.endThread()
	}
	return v
}

// work is the pool task: it runs the run stage unless the caller already gave up, and
// resumes the chain if the run's claim won the race. A run that calls runtime.Goexit ends
// the worker's goroutine (the pool replaces it); the chain is resumed all the same.
func (x *execution) work() {
	if !x.startThread() {
		return // timed out or cancelled while queued: run never starts
	}
	normal := false
	defer func() {
		x.thread.mu.Lock()
		x.thread.running = false
		x.thread.mu.Unlock()
		if !normal && x.phase.Load() == phaseCompleted {
			go x.resume(failed) // the run's Goexit was recorded as a failure
		}
	}()
	v, won := x.runOnce()
	normal = true
	if won {
		x.resume(v)
	}
}

// startThread reports whether the run may start (the caller still waits for it) and, if
// so, records the start: concurrency, the pool's active count, the run's start time.
func (x *execution) startThread() bool {
	t := x.thread
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != threadQueued || !x.racing() {
		t.state = threadEnded
		return false
	}
	t.state, t.running, t.started = threadStarted, true, x.now()
	x.executed = true
	x.ks.metrics.MarkStart()
	t.tp.MarkStart()
	return true
}

// endThread marks the pool goroutine's work over for the command and calls
// onThreadComplete once if it had started.
func (x *execution) endThread() {
	t := x.thread
	if t == nil {
		return
	}
	t.mu.Lock()
	started := t.state == threadStarted
	t.state = threadEnded
	t.mu.Unlock()
	if h := x.hook; h != nil && started {
		x.ks.rt.safeHook(func() { h.OnThreadComplete(x.runCtx(), x.ks.info) })
	}
}

// runGoingOn reports whether a run on a pool goroutine has started and not returned.
func (x *execution) runGoingOn() bool {
	t := x.thread
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running
}
