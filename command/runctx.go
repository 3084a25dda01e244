package command

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// runState is the state behind the context an execution gives to run (runCtx). It is a
// field of the execution, so handing the context out allocates nothing; its done channel
// and the watch on the caller's context are made only when the user code asks for Done.
type runState struct {
	mu        sync.Mutex
	done      chan struct{} // made by Done
	after     []*afterFunc  // registered by AfterFunc, called when the context ends
	err       uint8         // why the context ended (errNone, errCanceled, errDeadline)
	interrupt bool          // the timeout ends this context (interruptOnTimeout; always for streams)
	lazy      bool          // the deadline joins the key's queue only when Done is asked for
	watched   bool          // the caller's context and the lazy deadline are watched
	dl        deadline      // this execution's place in the key's deadline queue
}

// afterFunc is one AfterFunc registration: called or stopped, whichever comes first.
type afterFunc struct {
	f    func()
	used atomic.Bool
}

// Reasons a run context ended: context.Context.Err only ever returns context.Canceled or
// context.DeadlineExceeded, so a byte is enough.
const (
	errNone uint8 = iota
	errCanceled
	errDeadline
)

// runCtx is the context.Context given to run and construct: the execution itself, seen
// through a defined type that carries the context methods.
type runCtx execution

var _ context.Context = (*runCtx)(nil)

// runCtx returns the execution's run context.
func (x *execution) runCtx() context.Context { return (*runCtx)(x) }

func (c *runCtx) x() *execution { return (*execution)(c) }

// racing reports whether the timeout still applies: the run has not lost or won yet.
func (x *execution) racing() bool { return x.phase.Load() == phaseRunning }

// deadlineAt returns the execution timeout's deadline as an offset from the runtime's
// base, if it can still end the run context.
func (x *execution) deadlineAt() (time.Duration, bool) {
	if !x.rc.interrupt || x.timeout <= 0 || !x.racing() {
		return 0, false
	}
	return x.start + x.timeout, true
}

// Deadline returns the earlier of the caller's deadline and the execution timeout's
// (while the timeout can still end the context).
func (c *runCtx) Deadline() (time.Time, bool) {
	x := c.x()
	pd, pok := x.parent.Deadline()
	d, ok := x.deadlineAt()
	if !ok {
		return pd, pok
	}
	if t := x.ks.rt.base.Add(d); !pok || t.Before(pd) {
		return t, true
	}
	return pd, true
}

// Done returns a channel closed when the context ends: at the timeout (with
// interruptOnTimeout), when the caller's context ends, or when the command is cancelled
// with interruption; never merely because run returned.
func (c *runCtx) Done() <-chan struct{} {
	x := c.x()
	x.rc.mu.Lock()
	defer x.rc.mu.Unlock()
	if x.rc.done == nil {
		x.rc.done = make(chan struct{})
		if x.rc.err != errNone {
			close(x.rc.done)
		} else {
			x.watchLocked()
		}
	}
	return x.rc.done
}

// AfterFunc arranges for f to run in its own goroutine once the context ends, and returns
// a func that stops it (context.AfterFunc's contract). Having it spares the context
// package a goroutine per child context (http.Transport makes one per request).
func (c *runCtx) AfterFunc(f func()) (stop func() bool) {
	x := c.x()
	a := &afterFunc{f: f}
	x.rc.mu.Lock()
	defer x.rc.mu.Unlock()
	if x.rc.err != errNone {
		a.used.Store(true)
		go f()
	} else {
		x.rc.after = append(x.rc.after, a)
		x.watchLocked()
	}
	return func() bool { return a.used.CompareAndSwap(false, true) }
}

// watchLocked makes the context end with the caller's and, for a lazy deadline, at the
// timeout: the first time someone waits for it to end. x.rc.mu is held.
func (x *execution) watchLocked() {
	if x.rc.watched {
		return
	}
	x.rc.watched = true
	if err := x.parent.Err(); err != nil {
		x.rcCancelLocked(err)
		return
	}
	if x.rc.lazy {
		if d, ok := x.deadlineAt(); ok {
			if x.now() >= d {
				x.expireLocked()
				return
			}
			x.ks.deadlines.add(x, d)
		}
	}
	if x.parent.Done() != nil {
		x.watchParent()
	}
}

// watchParent ends the run context when the caller's context ends, even after run returned
// (a response body read later must stop when the caller gives up). The watch holds the
// execution only weakly, and is removed once the execution is garbage: a long-lived caller
// context (a worker's, a server's base context) must not keep every command it ever ran.
func (x *execution) watchParent() {
	wx := weak.Make(x)
	stop := context.AfterFunc(x.parent, func() {
		if x := wx.Value(); x != nil {
			x.onParentDone()
		}
	})
	runtime.AddCleanup(x, func(stop func() bool) { stop() }, stop)
}

// Err returns nil until the context ends, then context.Canceled or, for the execution
// timeout, context.DeadlineExceeded.
func (c *runCtx) Err() error {
	x := c.x()
	x.rc.mu.Lock()
	defer x.rc.mu.Unlock()
	if x.rc.err == errNone {
		if err := x.parent.Err(); err != nil {
			x.rcCancelLocked(err)
		} else if d, ok := x.deadlineAt(); ok && x.rc.lazy && x.now() >= d {
			x.expireLocked()
		}
	}
	switch x.rc.err {
	case errCanceled:
		return context.Canceled
	case errDeadline:
		return context.DeadlineExceeded
	}
	return nil
}

// Value returns the caller's value for key (request context, tracing, ...).
func (c *runCtx) Value(key any) any { return c.x().parent.Value(key) }

// String names the context for debugging.
func (c *runCtx) String() string { return "command.runContext" }

func (x *execution) onParentDone() { x.rcCancel(x.parent.Err()) }

// rcCancel ends the run context with err (the first reason wins).
func (x *execution) rcCancel(err error) {
	x.rc.mu.Lock()
	x.rcCancelLocked(err)
	x.rc.mu.Unlock()
}

func (x *execution) rcCancelLocked(err error) {
	if x.rc.err != errNone {
		return
	}
	x.rc.err = errCanceled
	if err == context.DeadlineExceeded {
		x.rc.err = errDeadline
	}
	if x.rc.done != nil {
		close(x.rc.done)
	}
	for _, a := range x.rc.after {
		if a.used.CompareAndSwap(false, true) {
			go a.f()
		}
	}
	x.rc.after = nil
}
