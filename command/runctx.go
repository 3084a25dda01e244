package command

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rxhystrix/rxhystrix/clock"
)

// runCtx is the context.Context given to run and construct: the caller's values and
// cancellation plus the execution timeout. It lives inside the command, so passing it
// allocates nothing, and its done channel, timer and parent watch are made only when the
// user code calls Done: a run that never looks at its context costs no timer at all (the
// timeout is then decided by the clock when run returns).
type runCtx struct {
	lazy      bool  // Done arms the timeout timer (inline execution)
	interrupt bool  // the timeout cancels this context (interruptOnTimeout)
	err       uint8 // why the context is done (errNone, errCanceled, errDeadline); under mu

	ended atomic.Bool // release was called
	mu    sync.Mutex
	lz    atomic.Pointer[ctxLazy] // written under mu
}

// Reasons a run context is done: context.Context.Err only ever returns
// context.Canceled or context.DeadlineExceeded, so a byte is enough.
const (
	errNone uint8 = iota
	errCanceled
	errDeadline
)

func errCode(err error) uint8 {
	if err == context.DeadlineExceeded {
		return errDeadline
	}
	return errCanceled
}

func (c *runCtx) errValue() error {
	switch c.err {
	case errCanceled:
		return context.Canceled
	case errDeadline:
		return context.DeadlineExceeded
	}
	return nil
}

// x returns the execution the context belongs to: runCtx is exec's first field.
func (c *runCtx) x() *exec { return (*exec)(unsafe.Pointer(c)) }

// ctxLazy is the part of a run context made on demand.
type ctxLazy struct {
	done       chan struct{}
	timer      clock.Timer
	stopParent func() bool
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// deadline returns the execution timeout's deadline, if it cancels this context.
func (c *runCtx) deadline() (time.Time, bool) {
	if !c.interrupt || c.x().timeout <= 0 {
		return time.Time{}, false
	}
	x := c.x()
	return x.startTime().Add(x.timeout), true
}

// Deadline returns the earlier of the parent's deadline and the execution timeout's.
func (c *runCtx) Deadline() (time.Time, bool) {
	pd, pok := c.x().parent.Deadline()
	d, ok := c.deadline()
	if !ok || (pok && pd.Before(d)) {
		return pd, pok
	}
	return d, true
}

// Done returns a channel closed on timeout (with interruptOnTimeout), on cancellation by
// the caller, or when the command is cancelled.
func (c *runCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	lz := c.lz.Load()
	if lz == nil {
		lz = &ctxLazy{}
		c.lz.Store(lz) // before reading ended: see release
	}
	if lz.done != nil {
		return lz.done
	}
	if c.lazy && c.ended.Load() {
		c.cancelLocked(context.Canceled)
	}
	if c.err != errNone {
		lz.done = closedChan
		return lz.done
	}
	lz.done = make(chan struct{})
	if c.ended.Load() {
		return lz.done // an abandoned run: nothing left to arm
	}
	if d, ok := c.deadline(); ok && c.lazy {
		clk := c.x().ks.rt.clk
		if wait := d.Sub(clk.Now()); wait > 0 {
			lz.timer = clk.AfterFunc(wait, c.x().onTimer)
		} else if c.x().timeOut() {
			c.cancelLocked(context.DeadlineExceeded)
			return lz.done
		}
	}
	if c.x().parent.Done() != nil {
		lz.stopParent = context.AfterFunc(c.x().parent, c.onParentDone)
	}
	return lz.done
}

// Err returns nil until the context is done, then the reason: the parent's error or
// context.DeadlineExceeded for the execution timeout.
func (c *runCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == errNone {
		if c.lazy && c.ended.Load() {
			c.cancelLocked(context.Canceled)
		} else if err := c.x().parent.Err(); err != nil {
			c.cancelLocked(err)
		} else if d, ok := c.deadline(); ok && c.lazy && !c.x().ks.rt.clk.Now().Before(d) && c.x().timeOut() {
			c.cancelLocked(context.DeadlineExceeded)
		}
	}
	return c.errValue()
}

// Value returns the parent's value for key (request context, tracing, ...).
func (c *runCtx) Value(key any) any { return c.x().parent.Value(key) }

func (c *runCtx) onParentDone() { c.cancel(c.x().parent.Err()) }

// cancel ends the context with err (first reason wins).
func (c *runCtx) cancel(err error) {
	c.mu.Lock()
	c.cancelLocked(err)
	c.mu.Unlock()
}

func (c *runCtx) cancelLocked(err error) {
	if c.err != errNone {
		return
	}
	c.err = errCode(err)
	if lz := c.lz.Load(); lz != nil && lz.done != nil && lz.done != closedChan {
		close(lz.done)
	}
}

// release stops the timer and the parent watch; call it once the execution is over. An
// inline run has returned, so its context is then cancelled (as an HTTP request's is
// when its handler returns); an abandoned pool run keeps its context.
func (c *runCtx) release() {
	c.ended.Store(true) // before loading lz: a concurrent Done either sees ended or is seen
	if c.lz.Load() == nil {
		return
	}
	c.mu.Lock()
	if c.lazy {
		c.cancelLocked(context.Canceled)
	}
	if lz := c.lz.Load(); lz != nil {
		if lz.timer != nil {
			lz.timer.Stop()
			lz.timer = nil
		}
		if lz.stopParent != nil {
			lz.stopParent()
			lz.stopParent = nil
		}
	}
	c.mu.Unlock()
}

// String names the context for debugging.
func (c *runCtx) String() string { return "command.runContext" }
