package command

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Phases of the race between the run and the timeout, the caller's cancellation and the
// pool (Hystrix's TimedOutStatus plus CANCELLED): exactly one wins the CAS from running.
const (
	raceIdle uint32 = iota // not executed yet (single use: begin moves it to running once)
	raceRunning
	raceCompleting
	raceCompleted
	raceTimedOut
	raceCancelled
)

// Thread states of a THREAD execution (Hystrix's ThreadState).
const (
	threadNotStarted uint32 = iota
	threadStarted
	threadEnded
)

// exec is the state of one execution shared by Command and Stream: the gate, the
// timeout race, the recorded events and the terminal cleanup. Exactly one goroutine
// drives it at a time (the caller, or the pool worker between Submit and its CAS).
type exec struct {
	rc   runCtx // first: a *runCtx is a *exec (see runCtx.x)
	ks   *keyState
	rare *rare               // cache key, Queue's stop channel: nil on the common path
	pw   *poolWait           // THREAD isolation and streams only
	hook hooks.ExecutionHook // nil when the registry holds the no-op hook

	parent context.Context

	race    atomic.Uint32
	events  atomic.Uint32 // atomics, because a request log may print them at any time
	emits   atomic.Int32
	fbEmits atomic.Int32

	executed bool
	inThread bool
	semHeld  bool
	timed    bool  // start is set
	notifies bool  // the event notifier is not the no-op one (read once per execution)
	class    Class // how the run's error counts (Command)

	ticket      breaker.Ticket  // from the breaker's Attempt
	verdict     breaker.Outcome // reported with ticket when the execution terminates; 0: none
	timeout     time.Duration   // 0: no timeout; the deadline is start+timeout
	total       atomic.Int64    // total latency in ns plus one; 0 until the end
	execLatency time.Duration
	start       time.Duration // since ks.rt.base, when timed
	failedErr   error         // the run's error (also while classifying), or the timeout/rejection cause
	execErr     error         // what the caller got
}

// rare holds what few executions use.
type rare struct {
	cacheKey  string
	stop      <-chan struct{} // cancellation that must not interrupt the run (Queue)
	collapsed int             // requests a collapser batch serves (COLLAPSED x n)
}

// poolWait is what a THREAD execution adds: the caller's wake-up and the pool
// goroutine's state (Hystrix's ThreadState), guarded by mu together with executed and
// inThread.
type poolWait struct {
	tp     *metrics.ThreadPoolMetrics // nil for streams, which never use the pool
	wake   chan struct{}
	timer  clock.Timer // the eager timeout timer; stopped by terminate
	mu     sync.Mutex
	thread uint32
}

func (x *exec) init(ks *keyState) {
	x.ks = ks
}

// begin claims the single use and checks what makes the command unusable.
func (x *exec) begin(ctx context.Context) error {
	if !x.race.CompareAndSwap(raceIdle, raceRunning) {
		return &Error{Type: BadRequestException, CommandKey: x.ks.info.CommandKey, Cause: ErrIllegalState}
	}
	if x.ks.err != nil {
		return &Error{Type: BadRequestException, CommandKey: x.ks.info.CommandKey, Cause: x.ks.err}
	}
	if x.ks.props.RequestLogEnabled.Get() {
		if rc := cache.FromContext(ctx); rc != nil {
			rc.Log().Add(x)
		}
	}
	return nil
}

// requestCache returns the request context to cache in, or nil; an error when a cache
// key is set without a request context.
func (x *exec) requestCache(ctx context.Context) (*cache.RequestContext, error) {
	if x.rare == nil || x.rare.cacheKey == "" || !x.ks.props.RequestCacheEnabled.Get() {
		return nil, nil
	}
	rc := cache.FromContext(ctx)
	if rc == nil {
		return nil, &Error{Type: BadRequestException, CommandKey: x.ks.info.CommandKey, Cause: ErrNoRequestContext}
	}
	return rc, nil
}

// open starts the execution proper: hook, parent context. The start time is read only
// when the run is about to be isolated (prepareRun): executions that never start run
// (short-circuited, rejected) read no clock and report no latency, which metrics ignore
// for them anyway.
func (x *exec) open(ctx context.Context, stop <-chan struct{}) {
	x.setParent(ctx, stop)
	if h := x.ks.rt.hooks.ExecutionHook(); !hooks.IsNoop(h) {
		x.hook = h
	}
	x.notifies = !hooks.IsNoopNotifier(x.ks.rt.hooks.EventNotifier())
}

// prepareRun starts the clock (so queue wait counts) and sets up the run context and the
// timeout. lazy: the timer is armed only if run asks for Done; else it is armed now
// (x.pw must be set).
func (x *exec) prepareRun(lazy bool) {
	p := x.ks.props
	x.start, x.timed = x.now(), true
	x.rc.lazy = lazy
	if !p.ExecutionTimeoutEnabled.Get() {
		return
	}
	x.timeout = p.ExecutionTimeout.Get()
	x.rc.interrupt = p.InterruptOnTimeout.Get()
	if !lazy {
		x.pw.timer = x.ks.rt.clk.AfterFunc(x.timeout, x.onTimer)
	}
}

// timedOutAt reports whether the timeout has passed at now.
func (x *exec) timedOutAt(now time.Duration) bool {
	return x.timeout > 0 && now-x.start >= x.timeout
}

// never stands for a time not read yet.
const never = time.Duration(math.MinInt64)

// now reads the clock as an offset from the runtime's base time.
func (x *exec) now() time.Duration { return x.ks.rt.clk.Since(x.ks.rt.base) }

// startTime returns the wall-clock start of the execution.
func (x *exec) startTime() time.Time { return x.ks.rt.base.Add(x.start) }

// onTimer is the timeout timer's callback.
func (x *exec) onTimer() {
	if x.race.CompareAndSwap(raceRunning, raceTimedOut) {
		x.expired()
	}
}

// timeOut makes the timeout win if the run is still running (inline execution); it
// reports whether the execution is timed out.
func (x *exec) timeOut() bool {
	x.race.CompareAndSwap(raceRunning, raceTimedOut)
	return x.race.Load() == raceTimedOut
}

// expired interrupts the run (interruptOnTimeout) and wakes a waiting caller.
func (x *exec) expired() {
	if x.rc.interrupt {
		x.rc.cancel(context.DeadlineExceeded)
	}
	if x.pw != nil {
		close(x.pw.wake)
	}
}

// cancelled reports whether the caller went away.
func (x *exec) cancelled() bool {
	if stop := x.stopCh(); stop != nil {
		select {
		case <-stop:
			return true
		default:
		}
	}
	return x.parent.Err() != nil
}

// setParent records the caller's context and Queue's stop channel.
func (x *exec) setParent(ctx context.Context, stop <-chan struct{}) {
	x.parent = ctx
	if stop != nil {
		x.rareFields().stop = stop
	}
}

func (x *exec) rareFields() *rare {
	if x.rare == nil {
		x.rare = &rare{}
	}
	return x.rare
}

// stopCh returns Queue's stop channel, nil if none.
func (x *exec) stopCh() <-chan struct{} {
	if x.rare == nil {
		return nil
	}
	return x.rare.stop
}

// cancelErr is the error a cancelled caller gets.
func (x *exec) cancelErr() error {
	if err := x.parent.Err(); err != nil {
		return err
	}
	return context.Canceled
}

// addEvent records e and tells the event notifier, as Hystrix does for every event.
func (x *exec) addEvent(e metrics.EventType) {
	x.events.Or(1 << e)
	if x.notifies {
		x.notify(e)
	}
}

// notify calls the event notifier's MarkEvent unless it is the no-op one.
func (x *exec) notify(e metrics.EventType) {
	if n := x.ks.rt.hooks.EventNotifier(); !hooks.IsNoopNotifier(n) {
		safeHook(func() { n.MarkEvent(x.parent, e, x.ks.info.CommandKey) })
	}
}

// count returns how many times e happened: EMIT, FALLBACK_EMIT and COLLAPSED can repeat.
func (x *exec) count(e metrics.EventType) int {
	switch e {
	case metrics.Emit:
		return int(x.emits.Load())
	case metrics.FallbackEmit:
		return int(x.fbEmits.Load())
	case metrics.Collapsed:
		return x.rare.collapsed // set before the execution, as COLLAPSED itself
	}
	return 1
}

// MarkCollapsed records that this command serves a collapser batch of n requests
// (COLLAPSED x n). The collapser calls it before executing the batch command.
func (x *exec) MarkCollapsed(n int) {
	x.rareFields().collapsed = n
	x.addEvent(metrics.Collapsed)
}

func (x *exec) has(e metrics.EventType) bool { return x.events.Load()&(1<<e) != 0 }

func (x *exec) isolation() config.IsolationStrategy { return x.ks.props.IsolationStrategy.Get() }

// markStarted records that user code is about to run on the caller (concurrency +1).
func (x *exec) markStarted() {
	x.executed = true
	x.ks.metrics.MarkStart()
}
