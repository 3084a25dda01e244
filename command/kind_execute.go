package command

import "context"

// WithFallback returns a Kind of the same key whose executions fall back to f
// (ExecutePooled's, and the commands New makes unless they set their own): f gets the
// caller's context and the error that caused it, as Command.WithFallback's does. k is
// unchanged; both share the Commands ExecutePooled reuses.
func (k *Kind[T]) WithFallback(f func(ctx context.Context, err error) (T, error)) *Kind[T] {
	return &Kind[T]{key: k.key, fallback: f, execs: k.execs}
}

// ExecutePooled runs run on a Command the Kind pools, and run's context is pooled with
// it: the context is valid only until run returns; use k.New(run).Execute(ctx) when it
// must outlive run. Otherwise it does what k.New(run).Execute(ctx) does: one execution of
// the kind's key, with the Kind's fallback, the same chain, events, metrics and hooks,
// waiting for its value or error. A success, a failure recovered by the
// fallback and a short circuit allocate nothing, under THREAD isolation too, where the
// Command itself is the pool's task (command.New allocates the Command each time, and
// under THREAD its thread state and channel).
//
// The run context ends with run as a pooled context does in Polly and as net/http's
// request context ends with its handler: the execution is then reused, and its context
// with it. A run whose context must outlive it (a response body read after run returned,
// work handed to a goroutine that watches the context) must use k.New(run).Execute(ctx)
// instead, whose context stays usable. Hooks that keep the run context beyond the
// execution are in the same case.
//
// An execution is reused only when nothing but ExecutePooled can still reach it: never
// with a retry or a hedge, after a timer ended it (under THREAD isolation its run may go
// on), when the caller left a run on the pool, when the request log holds it, or when its
// context watched the caller's or took an AfterFunc; an execution left by a panic or
// runtime.Goexit is left to the garbage collector.
func (k *Kind[T]) ExecutePooled(ctx context.Context, run func(ctx context.Context) (T, error)) (T, error) {
	ks := k.key.state()
	c, _ := k.execs.Get().(*Command[T])
	if c == nil || c.ks != ks { // none yet, or one of the state the runtime forgot
		c = newCommand[T](ks, nil)
	}
	c.run, c.fallback = run, k.fallback
	v, err := c.Execute(ctx)
	if c.reusable() { // not deferred: a panic or Goexit leaves c to the garbage collector
		c.recycle()
		k.execs.Put(c)
	}
	return v, err
}

// reusable reports whether nothing but the door that ran the Command can still reach it
// now that its outcome is known (Kind.ExecutePooled): no goroutine of its chain (a hedge, a
// retry's timer, a pool worker that has not handed the run's verdict back), no completed future (Queue, Observe, a cache slot), no
// request log, no timer that took its attempt out of the key's deadline queue (and may
// still expire it), no callback on the caller's context and no AfterFunc of its run
// context.
func (c *Command[T]) reusable() bool {
	x := &c.execution
	a := &x.first
	return !c.fut.Ready() && x.rare == nil && x.async == nil && !x.logged && x.last == nil &&
		(x.stages == nil || !x.stages.holds) && (a.thread == nil || a.thread.handedBack()) &&
		!a.rc.dl.queued.Load() && !a.rc.dl.taken.Load() && !a.rc.parentCB && a.rc.after == nil
}

// recycle makes a reusable Command new for the next execution of its key: everything is
// zeroed but what ties it to its key, the run context's done channel, made by an earlier
// execution and never closed (nothing can be waiting on it: its context was valid until
// that run returned), and a THREAD attempt's thread, whose channel the caller emptied.
func (c *Command[T]) recycle() {
	ks, done, t := c.ks, c.first.rc.done, c.first.thread
	if t == nil {
		t = c.spare // an execution refused before the pool keeps the one it did not use
	}
	if c.first.rc.err != errNone {
		done = nil
	}
	*c = Command[T]{}
	c.ks, c.body, c.first.x = ks, c, &c.execution
	c.first.rc.done, c.spare = done, t
}
