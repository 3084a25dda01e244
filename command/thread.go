package command

import (
	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// inPool runs the user function on the goroutine pool of the thread-pool key (THREAD
// isolation). The caller waits for the first of: the run's completion, the timeout
// (then it gets the fallback at once, while the run is interrupted), or its own
// cancellation.
func (c *Command[T]) inPool() (T, error) {
	x := &c.exec
	pool, tp, err := x.ks.threadPool()
	if err == nil {
		x.pw = &poolWait{tp: tp, wake: make(chan struct{})}
		x.prepareRun(false)
		err = pool.Submit(c.work)
	}
	if err != nil {
		if !x.race.CompareAndSwap(raceRunning, raceCompleted) {
			return c.settle(never) // the timeout won meanwhile
		}
		x.addEvent(metrics.ThreadPoolRejected)
		x.failedErr = err
		x.verdict = breaker.Failure
		return c.fallbackOr(RejectedThreadExecution, err)
	}
	select {
	case <-x.pw.wake:
	case <-x.parent.Done():
		c.stopWaiting(true)
	case <-x.stopCh():
		c.stopWaiting(false)
	}
	if x.race.Load() != raceCompleted {
		x.endThread() // timed out or cancelled: the run is abandoned now
	}
	return c.settle(never)
}

// stopWaiting handles the caller's cancellation: it wins the race (and interrupts the
// run if asked to) or waits for the winner to finish publishing.
func (c *Command[T]) stopWaiting(interrupt bool) {
	x := &c.exec
	if x.race.CompareAndSwap(raceRunning, raceCancelled) {
		if interrupt {
			x.rc.cancel(x.cancelErr())
		}
		return
	}
	<-x.pw.wake
}

// work is the pool task.
func (c *Command[T]) work() {
	x := &c.exec
	if !x.startThread() {
		return // timed out or cancelled while queued: run never starts
	}
	runStart := x.now()
	v, err := c.callThreadRun()
	if x.cancelled() && x.race.CompareAndSwap(raceRunning, raceCancelled) {
		// The caller went away (its cancellation reached the run first): it is waiting
		// for whoever won the race.
		x.endThread()
		close(x.pw.wake)
		return
	}
	if !x.race.CompareAndSwap(raceRunning, raceCompleting) {
		x.endThread()
		return // the timeout or the caller won: the late result changes nothing
	}
	x.execLatency = x.now() - runStart
	c.completed(v, err)
	x.endThread()
	x.race.Store(raceCompleted)
	close(x.pw.wake)
}

// callThreadRun calls the thread-start hook, then the run.
func (c *Command[T]) callThreadRun() (T, error) {
	x := &c.exec
	if h := x.hook; h != nil {
		if err := hookErr(func() error { return h.OnThreadStart(&x.rc, x.ks.info) }); err != nil {
			var zero T
			return zero, err
		}
	}
	return c.callRun()
}

// startThread is called by the pool worker: it reports whether the run may start (the
// caller has not given up on it) and, if so, records the start.
func (x *exec) startThread() bool {
	pw := x.pw
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.thread != threadNotStarted || x.race.Load() != raceRunning {
		pw.thread = threadEnded
		return false
	}
	pw.thread = threadStarted
	x.executed, x.inThread = true, true
	x.ks.metrics.MarkStart()
	pw.tp.MarkStart()
	return true
}

// endThread marks the pool goroutine's work over (from the worker when run returns, or
// from the caller when it stops waiting) and calls onThreadComplete once if it had started.
func (x *exec) endThread() {
	pw := x.pw
	pw.mu.Lock()
	started := pw.thread == threadStarted
	pw.thread = threadEnded
	pw.mu.Unlock()
	if h := x.hook; h != nil && started {
		safeHook(func() { h.OnThreadComplete(&x.rc, x.ks.info) })
	}
}
