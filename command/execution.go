package command

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/collapsed"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// execution is what one call owns: the state the stages of its chain share. It is
// embedded in the Command (or Stream), so it costs no allocation of its own.
//
// One goroutine drives it at a time: the caller, then (THREAD isolation, asynchronous
// front doors) whoever resumes the suspended chain. The run, the timer and the caller
// race only for phase, through claim; the winner writes the outcome, the losers write
// nothing. events, emits and fbEmits are atomics because a request log may print them at
// any time.
type execution struct {
	ks    *keyState
	chain *chain // picked at begin from the isolation strategy
	at    int    // chain.run's position: the stages [0, at) await their exit
	body  body   // the Command or Stream: the user code at both ends of the chain

	parent   context.Context     // the caller's, or what onStart returned
	hook     hooks.ExecutionHook // nil while the registry holds the no-op hook
	notifies bool                // the event notifier is not the no-op one
	async    bool                // a front door that does not wait (Queue, Observe)

	phase   atomic.Uint32
	events  atomic.Uint32
	emits   atomic.Int32
	fbEmits atomic.Int32

	ticket      breaker.Ticket // what the breaker let the execution through with
	admitted    bool           // the breaker let it through: its verdict goes back
	primary     verdict        // the verdict the breaker gets (breakerGate's exit)
	executed    bool           // run started: MarkStart was called
	timed       bool           // start is set
	start       time.Duration  // since ks.rt.base: when the timeout stage started the clock
	end         time.Duration  // when run returned (run's goroutine)
	timeout     time.Duration  // 0: no timeout; the deadline is start+timeout
	execLatency time.Duration  // written by the run's winning claim (see runLatency)
	total       atomic.Int64   // total latency in ns plus one; 0 until the terminal event
	failedErr   error          // why the primary path failed: the fallback's input
	err         error          // the error the caller gets: a failure, a cancel, or a business error with the value

	rc      runState                    // the run context (runctx.go)
	thread  *thread                     // THREAD isolation only (stage_pool.go)
	wake    chan struct{}               // a suspended synchronous caller waits here; closed by resume
	resumed verdict                     // what resume hands that caller
	stop    atomic.Pointer[func() bool] // stops an asynchronous execution's watch on its caller's context
	rare    *rare                       // what few executions use: nil on the common path
}

// rare holds what few executions use.
type rare struct {
	cacheKey  string
	flight    *execution // the original execution a cache hit replays
	owner     bool       // this execution runs for the cache slot it took
	collapsed int        // requests a collapser batch serves (COLLAPSED x n)
	final     verdict    // an owner's final verdict, for the hits to replay
}

// Phases of an execution. begin moves it from idle once (single use); the timeout stage
// opens the race (running); exactly one of the run, the timer and the caller then claims
// it: completing (the run won), timedOut or cancelled.
const (
	phaseIdle uint32 = iota
	phaseBegun
	phaseRunning
	phaseCompleting
	phaseCompleted
	phaseTimedOut
	phaseCancelled
)

// claim moves the running execution to phase to; only the first claim wins.
func (x *execution) claim(to uint32) bool { return x.phase.CompareAndSwap(phaseRunning, to) }

// lost returns the verdict of the claim that beat the caller's.
func (x *execution) lost() verdict {
	if x.phase.Load() == phaseTimedOut {
		return timedOut
	}
	return cancelled
}

// body is the user code at the two ends of the chain, implemented by Command and Stream.
type body interface {
	// call runs the user's run (or construct and its stream) on the current goroutine
	// and returns its error; a panic is a *PanicError.
	call(x *execution) error
	// won keeps what call produced, now that the run won the race (Command: its value).
	won()
	// emitted calls the execution-emit hooks for a successful single-value run.
	emitted(x *execution)
	// hasFallback reports whether a fallback is set.
	hasFallback() bool
	// callFallback runs the fallback for cause; it returns the fallback's error.
	callFallback(x *execution, cause error) error
	// settled hands the final verdict to the front door that waits for it (Future,
	// Observe's replay, request-cache hits), once the exits ran.
	settled(x *execution, v verdict)
	// done is closed once settled was called.
	done() <-chan struct{}
	// replays reports whether other is a body of the same kind (a cache hit on it works).
	replays(other body) bool
	// replay copies the outcome of the original other into the hit's body.
	replay(x *execution, other *execution)
	// streams reports whether the body is a stream (its context ends with the subscription).
	streams() bool
}

// errNilContext is the cause of the BAD_REQUEST_EXCEPTION of an execution given a nil
// context.
var errNilContext = errors.New("command: nil context")

// begin claims the single use, checks what makes the execution impossible, adds the
// command to the request log and takes its request-cache slot. It is what every front
// door does first, on the caller's goroutine.
func (x *execution) begin(ctx context.Context, async bool) error {
	if !x.phase.CompareAndSwap(phaseIdle, phaseBegun) {
		return x.badRequest(ErrIllegalState)
	}
	if ctx == nil {
		return x.badRequest(errNilContext)
	}
	if err := x.ks.err; err != nil {
		x.ks.misconfigured()
		return x.badRequest(err)
	}
	x.parent, x.async = ctx, async
	x.chain = x.ks.chainFor(x)
	rc := cache.FromContext(ctx)
	if rc != nil && x.ks.props.RequestLogEnabled.Get() {
		rc.Log().Add(x)
	}
	return x.takeCacheSlot(rc)
}

// badRequest is the BAD_REQUEST_EXCEPTION of an execution that cannot start.
func (x *execution) badRequest(cause error) error {
	return &Error{Type: BadRequestException, CommandKey: x.ks.info.CommandKey, Cause: cause}
}

// open reads what the chain needs per execution from the registries: the hooks.
func (x *execution) open() {
	if h := x.ks.rt.hooks.ExecutionHook(); !hooks.IsNoop(h) {
		x.hook = h
	}
	x.notifies = !hooks.IsNoopNotifier(x.ks.rt.hooks.EventNotifier())
}

// resume continues a suspended chain with v (the run, the timer or the caller won the
// race). A waiting synchronous caller runs the exits itself; otherwise they run here.
func (x *execution) resume(v verdict) {
	if !x.async {
		x.resumed = v
		close(x.wake)
		return
	}
	x.unsuspend()
	x.body.settled(x, x.chain.run(x, v))
}

// await waits, on the synchronous caller's goroutine, for a suspended chain to resume, or
// for the caller's context to end first, and runs the exits.
func (x *execution) await() verdict {
	select {
	case <-x.wake:
	case <-x.parent.Done():
		if x.claim(phaseCancelled) {
			x.interruptForCancel()
			return x.chain.run(x, cancelled)
		}
		<-x.wake
	}
	return x.chain.run(x, x.resumed)
}

// suspend prepares x for a later resume: a synchronous caller gets a channel to wait on,
// an asynchronous execution a watch on its caller's context.
func (x *execution) suspend() {
	if !x.async {
		x.wake = make(chan struct{})
		return
	}
	if x.parent.Done() != nil {
		stop := context.AfterFunc(x.parent, x.cancel)
		x.stop.Store(&stop)
	}
}

// unsuspend undoes suspend for a stage that decided after all.
func (x *execution) unsuspend() {
	if stop := x.stop.Swap(nil); stop != nil {
		(*stop)()
	}
}

// cancel gives up an asynchronous execution (its caller's context ended, or its Future
// was cancelled): CANCELLED, unless the outcome is already decided.
func (x *execution) cancel() {
	if x.claim(phaseCancelled) {
		x.interruptForCancel()
		x.resume(cancelled)
	}
}

// canceler is the execution as its Future's observable.Canceler.
type canceler execution

// Cancel implements observable.Canceler.
func (c *canceler) Cancel() { (*execution)(c).cancel() }

// interruptForCancel ends the run's context for the winner of a cancellation: always when
// the caller's context ended (the run context derives from it), and for a Future's Cancel
// only with interruptOnFutureCancel. Without it the run goes on, bounded by its timeout.
func (x *execution) interruptForCancel() {
	if x.parent.Err() != nil || x.ks.props.InterruptOnFutureCancel.Get() {
		x.rcCancel(context.Canceled)
	}
}

// callerGone reports whether the caller's context has ended.
func (x *execution) callerGone() bool { return x.parent.Err() != nil }

// cancelErr is the error a cancelled caller gets.
func (x *execution) cancelErr() error {
	if err := x.parent.Err(); err != nil {
		return err
	}
	return context.Canceled
}

func (x *execution) rareFields() *rare {
	if x.rare == nil {
		x.rare = &rare{}
	}
	return x.rare
}

// addEvent records e and tells the event notifier, as Hystrix does for every event.
func (x *execution) addEvent(e metrics.EventType) {
	x.events.Or(1 << e)
	if x.notifies {
		x.notify(e)
	}
}

// notify calls the event notifier's MarkEvent unless it is the no-op one.
func (x *execution) notify(e metrics.EventType) {
	if n := x.ks.rt.hooks.EventNotifier(); !hooks.IsNoopNotifier(n) {
		x.ks.rt.safeHook(func() { n.MarkEvent(x.parent, e, x.ks.info.CommandKey) })
	}
}

func (x *execution) has(e metrics.EventType) bool { return x.events.Load()&(1<<e) != 0 }

// count returns how many times e happened: EMIT, FALLBACK_EMIT and COLLAPSED can repeat.
func (x *execution) count(e metrics.EventType) int {
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

// now reads the clock as an offset from the runtime's base time.
func (x *execution) now() time.Duration { return x.ks.rt.clk.Since(x.ks.rt.base) }

// startTime returns the wall-clock start of the execution.
func (x *execution) startTime() time.Time { return x.ks.rt.base.Add(x.start) }

// markCollapsed records that this command serves a collapser batch of n requests
// (COLLAPSED x n). The collapser calls it, through collapsed.Mark, before executing the
// batch command.
func (x *execution) markCollapsed(n int) {
	x.rareFields().collapsed = n
	x.addEvent(metrics.Collapsed)
}

func init() {
	collapsed.Mark = func(cmd any, n int) {
		if c, ok := cmd.(interface{ markCollapsed(n int) }); ok {
			c.markCollapsed(n)
		}
	}
}
