package command

import (
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// threadPool is THREAD isolation: it hands the rest of the chain (the run) to the
// goroutine pool of the key's thread-pool key and waits for the timeout's race: the
// worker settles it when the run returns, the timer at the deadline (the caller gets the
// fallback at once while the run goes on unobserved, bounded by its deadline), the caller
// by leaving. On the way out it calls onThreadComplete once (after onUnsubscribe for a
// caller that left: terminal calls it then).
type threadPool struct{}

// poolFull is the pool's refusal: THREAD_POOL_REJECTED.
var poolFull = refusal{event: metrics.ThreadPoolRejected, failure: RejectedThreadExecution}

// threadPoolStage is the stage a THREAD key's chain holds: a pointer, so that the chain
// calls run itself, not a wrapper the compiler makes for a value's method (one frame less
// under which the caller parks); one value, so that chains of keys alike stay one chain.
var threadPoolStage = &threadPool{}

func (threadPool) forKey(k shape) (stage, bool) { return threadPoolStage, k.iso == config.Thread }

func (threadPool) waits() {}

func (threadPool) handsBack() {}

// thread is what a THREAD attempt adds, made (or taken back from the execution's spare)
// by the timeout stage as the attempt starts: the pool task itself (Run), the channel its
// caller waits on for the race's winner (won: Finish or the timer's settle writes v, then sends), and the pool
// goroutine's state (Hystrix's ThreadState), guarded by mu. A Kind reuses it with its
// execution once the caller got the run's verdict (handedBack): no allocation per call.
type thread struct {
	a       *attempt
	next    next          // the rest of the chain, which the worker runs
	won     chan struct{} // capacity 1: a send never blocks; await takes it
	v       verdict
	back    bool                       // the run's side won: Finish sends on won (the worker's)
	tp      *metrics.ThreadPoolMetrics // the pool's metrics, once the pool stage has the pool
	mu      sync.Mutex
	state   uint8         // threadQueued, threadStarted or threadEnded
	running bool          // the run is on the worker and has not returned (left set once handedBack: unread)
	started time.Duration // when the worker took the run
	queues  bool          // the pool has a queue: the worker reads the clock as it takes the run
}

// Thread states: the run waits in the pool, runs, or is over for the command (it returned,
// or the caller stopped waiting for it).
const (
	threadQueued uint8 = iota
	threadStarted
	threadEnded
)

func (*threadPool) run(x *execution, a *attempt, next next) verdict {
	pool, tp, err := x.ks.threadPool()
	if err == nil {
		a.thread.tp, a.thread.next, a.thread.queues = tp, next, pool.Queues()
		err = pool.SubmitTask(a.thread)
	}
	if err != nil {
		if !a.race.runEnded() {
			return a.await() // the timer or the caller won meanwhile
		}
		return a.refuse(&poolFull, err)
	}
	var v verdict
	if t := a.thread; x.async == nil && x.parent.Done() == nil {
		<-t.won // a caller that cannot leave (await's plain receive), parked one frame up less
		v = t.v
	} else {
		v = a.await()
	}
	if v.kind != cancelled {
		a.endThread()
	}
	return v
}

// newThread returns the thread of THREAD attempt a: for the first attempt the one an earlier
// execution of a reused Command left (x.spare), else a new one.
func (x *execution) newThread(a *attempt) *thread {
	t := x.spare
	if t == nil || a != &x.first {
		t = &thread{won: make(chan struct{}, 1)}
	} else {
		x.spare = nil
		*t = thread{won: t.won}
	}
	t.a = a
	return t
}

// Run is the pool task (bulkhead.Task): the attempt's work.
func (t *thread) Run() { t.a.work(t.next) }

// Finish hands the run's verdict to the caller, if the run's side won the race, once the
// worker is idle again (bulkhead.Finisher): the worker's last touch of the attempt.
func (t *thread) Finish() {
	if t.back {
		t.won <- struct{}{}
	}
}

// handedBack reports whether the pool goroutine is done with the attempt: the run's side
// won the race (or the pool refused the attempt), and Finish, the worker's last touch,
// handed its verdict to the caller. When the timer or the caller won, the run may go on.
// The caller asks it once await returned (it got the verdict from Finish whenever the
// run's side won); then it reads the thread without its lock.
func (t *thread) handedBack() bool {
	p := t.a.race.phase.Load()
	return p == raceRun
}

// work is the pool task: it runs the rest of the chain unless the race is over already,
// and keeps the verdict for Finish if the run's side won the race. A run that calls
// runtime.Goexit ends the worker's goroutine (the pool replaces it); its FAILURE is
// recorded on the way down (run stage) and the race settled all the same.
func (a *attempt) work(next next) {
	if !a.startThread() {
		return // timed out or cancelled while queued: run never starts
	}
	v := verdict{kind: failed, cause: errGoexit} // what the waiter gets if the goroutine unwinds
	defer func() {
		t := a.thread
		switch a.race.phase.Load() {
		case raceRun: // the run's side won: Finish hands its verdict over
			t.v, t.back = v, true
			return // handedBack from now on: nobody reads running, no lock
		}
		t.mu.Lock()
		t.running = false
		t.mu.Unlock()
	}()
	if next.bare {
		v = a.runOnce() // the run stage alone: what next.run does, without a descent
	} else {
		v = next.run(a.x, a)
	}
	if a.race.running() { // a stage inside decided without the run: its verdict stands
		a.race.runEnded() // (a run that returned claimed the race: the load spares a failed CAS, an RMW too)
	}
}

// startThread reports whether the run may start (the caller still waits for it) and, if
// so, records the start: concurrency, the pool's active count, the run's start time (the
// attempt's, from a pool without a queue, where a task goes to a worker at once: the
// hand-off, a goroutine switch, counts in the execution latency and spares a clock read).
func (a *attempt) startThread() bool {
	t := a.thread
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != threadQueued || !a.race.running() {
		t.state = threadEnded
		return false
	}
	t.state, t.running, t.started = threadStarted, true, a.start
	if t.queues { // the run may have waited in the queue, which is not execution latency
		t.started = a.x.now()
	}
	a.executed = true
	a.x.ks.metrics.MarkStart()
	t.tp.MarkStart()
	return true
}

// endThread marks the pool goroutine's work over for the command and calls
// onThreadComplete once if it had started.
func (a *attempt) endThread() {
	t := a.thread
	if t == nil {
		return
	}
	var started bool
	if t.handedBack() { // the worker is done with it: no lock
		started, t.state = t.state == threadStarted, threadEnded
	} else {
		t.mu.Lock()
		started, t.state = t.state == threadStarted, threadEnded
		t.mu.Unlock()
	}
	if h := a.x.hook; h != nil && started {
		a.x.ks.rt.safeHook(func() { h.OnThreadComplete(a.ctx(), a.x.ks.info) })
	}
}

// ran reports, under the thread's lock unless the worker handed the attempt back, whether
// a's run started on the pool goroutine.
func (t *thread) ran(a *attempt) bool {
	if t.handedBack() {
		return a.executed
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return a.executed
}

// runGoingOn reports whether a run on a pool goroutine has started and not returned.
func (a *attempt) runGoingOn() bool {
	t := a.thread
	if t == nil || t.handedBack() {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running
}
