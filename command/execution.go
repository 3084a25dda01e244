package command

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/collapsed"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// execution is what one command owns: the state its chain's execution-level stages
// share. It is embedded in the Command (or Stream), so it costs no allocation of its own.
// What one try of the inner stages owns is in an attempt; the first is embedded here.
//
// One goroutine drives the chain at a time: the caller, or for a door that does not wait
// a goroutine of the execution's own (driveAsync). The fields are grouped by who writes
// them.
type execution struct {
	// Set before the chain runs, on the caller's goroutine (New, WithCacheKey,
	// MarkCollapsed, begin); read-only afterwards, except parent, which onStart may
	// replace before any attempt starts.
	ks       *keyState
	body     body  // the Command or Stream: the user code at both ends of the chain
	stages   *link // the key's chain when the execution began
	rare     *rare // what few executions use: nil on the common path
	parent   context.Context
	async    *async              // a door that does not wait, running a chain that may (driveAsync)
	hook     hooks.ExecutionHook // nil while the registry holds the no-op hook (open)
	notifies bool                // the event notifier is not the no-op one (open)
	logged   bool                // the request log holds the execution (begin)

	// Written on the goroutine that drives the chain, each by the stage named.
	timed     bool          // start is set
	outer     uint32        // the execution's own events, not its attempts' (addEvent)
	start     time.Duration // timeout (or a cache hit): when the command's clock started, as an offset from the runtime's base
	failedErr error         // fallback: why the primary path failed (FailedExecutionError)
	err       error         // terminal: what the caller gets (ExecutionError)

	// Atomics any goroutine may read at any time (accessors, the request log, cancel).
	door    atomic.Uint32 // doorIdle, then the door that began the execution (single use)
	events  atomic.Uint32 // every event of the execution and of its attempts
	emits   atomic.Int32  // EMIT count (a stream's values)
	fbEmits atomic.Int32  // FALLBACK_EMIT count
	total   atomic.Int64  // total latency in ns plus one; 0 until the terminal event

	first attempt  // the first attempt
	last  *attempt // the last attempt when there were several (lastAttempt); nil: first
	spare *thread  // a reused Command's thread from its last execution, for the first attempt (newThread)
}

// async is what a door that does not wait (Queue, Observe) adds when its chain may wait
// for another goroutine (driveAsync).
type async struct {
	quit     chan struct{} // closed by cancel (Future.Cancel)
	quitted  atomic.Bool   // quit is closed
	detached chan struct{} // closed when the door's caller may go (detach)
	isDone   bool          // detached is closed (the driving goroutine's)
}

// rare holds what few executions use.
type rare struct {
	cacheKey  string
	flight    *execution // the original execution a cache hit replays
	owner     bool       // this execution runs for the cache slot it took
	collapsed int        // requests a collapser batch serves (COLLAPSED x n)
	final     verdict    // an owner's final verdict, for the hits to replay
}

// Doors that begin an execution (execution.door). Observe remembers that it began it, so
// that calling Observe again returns the same observable.
const (
	doorIdle uint32 = iota
	doorOther
	doorObserve
)

// body is the user code at the two ends of the chain, implemented by Command and Stream.
type body interface {
	// call runs the user's run (or construct and its stream) for attempt a on the
	// current goroutine and returns its error; a panic is a *PanicError.
	call(a *attempt) error
	// failure returns the kind of a failed run of a: failed, or for a stream the kind of
	// the phase it failed in.
	failure(a *attempt, err error) kind
	// won keeps what call produced for a, now that a's run won the race (Command: its
	// value).
	won(a *attempt)
	// emitted calls the execution-emit hooks for a successful single-value run of a.
	emitted(a *attempt)
	// hasFallback reports whether a fallback is set.
	hasFallback() bool
	// callFallback runs the fallback for cause; it returns the fallback's error.
	callFallback(x *execution, cause error) error
	// settled hands the final verdict to the front door that waits for it (Future,
	// Observe's replay, request-cache hits), once terminal ran.
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

// claim takes the execution's single use for door; a later door gets the
// BAD_REQUEST_EXCEPTION (illegal state) and must leave the execution alone.
func (x *execution) claim(door uint32) error {
	if !x.door.CompareAndSwap(doorIdle, door) {
		return x.badRequest(ErrIllegalState)
	}
	return nil
}

// begin checks what makes the claimed execution impossible, adds the command to the
// request log, takes its request-cache slot, reads the plugins it calls and picks the
// stages it runs. It is what every front door does after claim, on the caller's
// goroutine.
func (x *execution) begin(ctx context.Context) error {
	if ctx == nil {
		return x.badRequest(errNilContext)
	}
	if err := x.ks.err; err != nil {
		x.ks.misconfigured()
		return x.badRequest(err)
	}
	x.parent = ctx
	rc := cache.FromContext(ctx)
	if rc != nil && config.RequestLogEnabled.In(x.ks.props).Get() {
		rc.Log().Add(x)
		x.logged = true
	}
	if err := x.takeCacheSlot(rc); err != nil {
		return err
	}
	x.open()
	x.stages = x.ks.currentChain()
	return nil
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

// driveAsync runs the chain for a door that does not wait (Queue, Observe) and hands the
// final verdict to settled. When no stage can wait for another goroutine (SEMAPHORE
// isolation, no cache hit to wait for) the chain runs on the caller's goroutine, as in
// Hystrix. Otherwise it runs on a goroutine of its own, and the caller goes as soon as a
// stage starts waiting (wait): what must be known when the door returns (a short circuit,
// a rejection) is known by then.
func (x *execution) driveAsync() {
	if !x.stages.waits && (x.rare == nil || x.rare.flight == nil) {
		x.body.settled(x, x.drive())
		return
	}
	x.async = &async{quit: make(chan struct{}), detached: make(chan struct{})}
	go func() {
		var v verdict // aborted, unless drive returns
		defer func() {
			x.body.settled(x, v)
			x.detach()
		}()
		v = x.drive()
	}()
	<-x.async.detached
}

// detach lets an asynchronous door's caller go (driveAsync); it is a no-op for a door
// that waits itself.
func (x *execution) detach() {
	if d := x.async; d != nil && !d.isDone {
		d.isDone = true
		close(d.detached)
	}
}

// wait blocks until ch is closed or the caller goes away (its context ends, or cancel
// gives the execution up); it reports whether ch closed first. A stage that waits for
// another goroutine waits here: an asynchronous door's caller is let go first.
func (x *execution) wait(ch <-chan struct{}) bool {
	x.detach()
	var quit chan struct{}
	if x.async != nil {
		quit = x.async.quit
	}
	done := x.parent.Done()
	if done == nil && quit == nil { // a caller that cannot leave: a plain receive, no select
		<-ch
		return true
	}
	select {
	case <-ch:
		return true
	case <-done:
	case <-quit:
	}
	select { // both happened: what ch stands for wins
	case <-ch:
		return true
	default:
		return false
	}
}

// cancel gives up an asynchronous execution (its Future was cancelled): the stage
// waiting for it stops waiting and the execution ends CANCELLED, unless its outcome is
// decided first.
func (x *execution) cancel() {
	if d := x.async; d != nil && d.quitted.CompareAndSwap(false, true) {
		close(d.quit)
	}
}

// canceler is the execution as its Future's rx.Canceler.
type canceler execution

// Cancel implements rx.Canceler.
func (c *canceler) Cancel() { (*execution)(c).cancel() }

// callerGone reports whether the caller gave up on a run that returned err: its context
// ended, or the run failed once the context's deadline had passed (a client that enforces
// the deadline itself, as gRPC and net/http's Client.Timeout do, may return before the
// context reports it; the deadline is read only for a failed run).
func (x *execution) callerGone(err error) bool {
	if x.parent.Err() != nil {
		return true
	}
	return err != nil && deadlinePassed(x.parent)
}

// cancelErr is the error a cancelled caller gets: its context's, or DeadlineExceeded for
// a deadline that passed before the context reported it (callerGone).
func (x *execution) cancelErr() error {
	if err := x.parent.Err(); err != nil {
		return err
	}
	if deadlinePassed(x.parent) {
		return context.DeadlineExceeded
	}
	return context.Canceled
}

func (x *execution) rareFields() *rare {
	if x.rare == nil {
		x.rare = &rare{}
	}
	return x.rare
}

// lastAttempt returns the attempt whose outcome the command reports.
func (x *execution) lastAttempt() *attempt {
	if x.last != nil {
		return x.last
	}
	return &x.first
}

// addEvent records an event of the execution itself (not of an attempt) and tells the
// event notifier, as Hystrix does for every event.
func (x *execution) addEvent(e metrics.EventType) {
	x.outer |= 1 << e
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

// count returns how many times e happened: EMIT, FALLBACK_EMIT, COLLAPSED and
// STREAM_RESUMED can repeat.
func (x *execution) count(e metrics.EventType) int {
	switch e {
	case metrics.StreamResumed:
		return x.body.(resumer).Resumes()
	case metrics.Emit:
		return int(x.emits.Load())
	case metrics.FallbackEmit:
		return int(x.fbEmits.Load())
	case metrics.Collapsed:
		return x.rare.collapsed // set before the execution, as COLLAPSED itself
	}
	return 1
}

// resumer is a body that resumes (Stream): it has STREAM_RESUMED's count.
type resumer interface{ Resumes() int }

// now reads the clock as an offset from the runtime's base time.
func (x *execution) now() time.Duration { return x.ks.rt.clk.Since(x.ks.rt.base) }

// MarkCollapsed records that the command serves a collapser batch (COLLAPSED x its size).
// It is for package collapser, which calls it before executing the batch command: no
// other package can make a collapsed.Batch.
func (x *execution) MarkCollapsed(b collapsed.Batch) {
	x.rareFields().collapsed = b.Size()
	x.addEvent(metrics.Collapsed)
}
