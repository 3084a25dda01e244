package command

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// runState is the state behind the context an attempt gives to run (runCtx). It is a
// field of the attempt, so handing the context out allocates nothing; its done channel,
// the lazy deadline's place in the key's queue and the watch on the caller's context are
// made only when the user code asks for Done (the deadline also for Err).
type runState struct {
	mu        sync.Mutex
	done      chan struct{} // made by Done (a pooled execution keeps one never closed)
	after     *afterFunc    // registered by AfterFunc, called when the context ends (a list)
	err       uint8         // why the context ended (errNone, errCanceled, errDeadline)
	interrupt bool          // the timeout ends this context (interruptOnTimeout; always for streams)
	lazy      bool          // the deadline joins the key's queue only when Done or Err is asked for
	joined    bool          // the lazy deadline was put in the key's queue (or found passed)
	watched   bool          // the caller's context and the lazy deadline are watched
	parentCB  bool          // a callback on the caller's context was registered (watchParent)
	dl        deadline      // this attempt's place in the key's deadline queue
}

// afterFunc is one AfterFunc registration: called or stopped, whichever comes first.
type afterFunc struct {
	f    func()
	used atomic.Bool
	next *afterFunc
}

// Reasons a run context ended: context.Context.Err only ever returns context.Canceled or
// context.DeadlineExceeded, so a byte is enough.
const (
	errNone uint8 = iota
	errCanceled
	errDeadline
)

// runCtx is the context.Context given to run and construct: the attempt itself, seen
// through a defined type that carries the context methods.
type runCtx attempt

var _ context.Context = (*runCtx)(nil)

func (c *runCtx) a() *attempt { return (*attempt)(c) }

// deadlineAt returns the attempt timeout's deadline as an offset from the runtime's base,
// if it can still end the run context.
func (a *attempt) deadlineAt() (time.Duration, bool) {
	if !a.rc.interrupt || a.timeout <= 0 || !a.race.running() {
		return 0, false
	}
	return a.start + a.timeout, true
}

// Deadline returns the earlier of the caller's deadline and the execution timeout's
// (while the timeout can still end the context).
func (c *runCtx) Deadline() (time.Time, bool) {
	a := c.a()
	pd, pok := a.x.parent.Deadline()
	d, ok := a.deadlineAt()
	if !ok {
		return pd, pok
	}
	if t := a.x.ks.rt.base.Add(d); !pok || t.Before(pd) {
		return t, true
	}
	return pd, true
}

// Done returns a channel closed when the context ends: at the timeout (with
// interruptOnTimeout), when the caller's context ends, or when the command is cancelled
// with interruption; never merely because run returned.
func (c *runCtx) Done() <-chan struct{} {
	a := c.a()
	a.rc.mu.Lock()
	defer a.rc.mu.Unlock()
	if a.rc.done == nil {
		a.rc.done = make(chan struct{})
		if a.rc.err != errNone {
			close(a.rc.done)
		}
	}
	if a.rc.err == errNone {
		a.watchLocked()
	}
	return a.rc.done
}

// AfterFunc arranges for f to run in its own goroutine once the context ends, and returns
// a func that stops it (context.AfterFunc's contract). Having it spares the context
// package a goroutine per child context (http.Transport makes one per request).
func (c *runCtx) AfterFunc(f func()) (stop func() bool) {
	a := c.a()
	af := &afterFunc{f: f}
	a.rc.mu.Lock()
	defer a.rc.mu.Unlock()
	if a.rc.err != errNone {
		af.used.Store(true)
		go f()
	} else {
		af.next, a.rc.after = a.rc.after, af
		a.watchLocked()
	}
	return func() bool { return af.used.CompareAndSwap(false, true) }
}

// watchLocked makes the context end with the caller's and, for a lazy deadline, at the
// timeout: the first time someone waits for it to end. a.rc.mu is held.
func (a *attempt) watchLocked() {
	if a.rc.watched {
		return
	}
	a.rc.watched = true
	if err := a.x.parent.Err(); err != nil {
		a.rcCancelLocked(err)
		return
	}
	if a.joinLocked() {
		return
	}
	if a.x.parent.Done() != nil {
		a.watchParent()
	}
}

// joinLocked puts a lazy deadline in the key's queue, once, so that the queue's timer ends
// the context: no clock read of its own unless the queue's timer must be armed. It reports
// whether the deadline had passed (the context then ended). a.rc.mu is held.
func (a *attempt) joinLocked() bool {
	if !a.rc.lazy || a.rc.joined {
		return false
	}
	a.rc.joined = true
	d, ok := a.deadlineAt()
	if ok && a.x.ks.deadlines.add(a, d, unknownNow) {
		a.expireLocked()
		return true
	}
	return false
}

// watchParent ends the run context when the caller's context ends, even after run returned
// (a response body read later must stop when the caller gives up). The watch holds the
// attempt only weakly, and is removed once the attempt is garbage: a long-lived caller
// context (a worker's, a server's base context) must not keep every command it ever ran.
func (a *attempt) watchParent() {
	a.rc.parentCB = true
	wa := weak.Make(a)
	stop := context.AfterFunc(a.x.parent, func() {
		if a := wa.Value(); a != nil {
			a.onParentDone()
		}
	})
	runtime.AddCleanup(a, func(stop func() bool) { stop() }, stop)
}

// Err returns nil until the context ends, then context.Canceled or, for the execution
// timeout, context.DeadlineExceeded. A lazy deadline joins the key's queue on the first
// call, whose timer ends the context: Err reads no clock.
func (c *runCtx) Err() error {
	a := c.a()
	a.rc.mu.Lock()
	defer a.rc.mu.Unlock()
	if a.rc.err == errNone {
		if err := a.x.parent.Err(); err != nil {
			a.rcCancelLocked(err)
		} else {
			a.joinLocked()
		}
	}
	switch a.rc.err {
	case errCanceled:
		return context.Canceled
	case errDeadline:
		return context.DeadlineExceeded
	}
	return nil
}

// Value returns the caller's value for key (request context, tracing, ...).
func (c *runCtx) Value(key any) any {
	if key == (attemptKey{}) {
		return c.a()
	}
	return c.a().x.parent.Value(key)
}

// attemptKey finds, through the contexts derived from it, the run context whose attempt
// a context's values come from (deadlinePassed).
type attemptKey struct{}

// deadlinePassed reports whether ctx's deadline has passed, read on the clock it was set
// on: a command's run context (or a context derived from it) keeps its deadline on its
// runtime's clock, which a test may have replaced; any other deadline is the wall clock's.
func deadlinePassed(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	if !ok {
		return false
	}
	now := time.Now()
	if a, own := ctx.Value(attemptKey{}).(*attempt); own {
		if ad, ok := (*runCtx)(a).Deadline(); ok && ad.Equal(d) {
			now = a.x.ks.rt.clk.Now()
		}
	}
	return !now.Before(d)
}

// String names the context for debugging.
func (c *runCtx) String() string { return "command.runContext" }

func (a *attempt) onParentDone() { a.rcCancel(a.x.parent.Err()) }

// rcCancel ends the run context with err (the first reason wins).
func (a *attempt) rcCancel(err error) {
	a.rc.mu.Lock()
	a.rcCancelLocked(err)
	a.rc.mu.Unlock()
}

func (a *attempt) rcCancelLocked(err error) {
	if a.rc.err != errNone {
		return
	}
	a.rc.err = errCanceled
	if err == context.DeadlineExceeded {
		a.rc.err = errDeadline
	}
	if a.rc.done != nil {
		close(a.rc.done)
	}
	for af := a.rc.after; af != nil; af = af.next {
		if af.used.CompareAndSwap(false, true) {
			go af.f()
		}
	}
	a.rc.after = nil
}
