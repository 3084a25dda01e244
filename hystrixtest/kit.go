package hystrixtest

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// DefaultStart is where New starts the kit's clock: a whole second, so that every bucket
// starts with the kit.
var DefaultStart = time.Unix(1_000_000, 0)

// defaultStuckAfter is how long the kit waits in real time, by default, for what only other
// goroutines can do (SetStuckAfter).
const defaultStuckAfter = 10 * time.Second

// realDeadline is how far ahead of the kit's clock a context deadline is taken for one of
// real time (context.WithTimeout), which the fake clock does not drive.
const realDeadline = 24 * time.Hour

// Kit is a test's rxhystrix: a Runtime on a fake clock with a Recorder on its hooks, the
// callers the test started with Go, and the scripted calls waiting on the clock. Use it
// from the test's goroutine, except Sleep and the scripted calls, which callers make.
type Kit struct {
	clk   *clock.Fake
	start time.Time
	rt    *command.Runtime
	rec   *Recorder
	src   *config.MemorySource
	store *config.Store

	ctx    context.Context // the callers' contexts derive from it; Close cancels it
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever a caller or a wait comes or goes
	callers  map[*caller]struct{}
	started  int // callers of Go so far, to number them
	waits    map[*wait]struct{}
	panicked any // the first panic of a caller of Go, raised again by Settle
	closed   bool

	stuckAfter time.Duration // SetStuckAfter
}

// caller is one goroutine started by Go, numbered from 1; the context it gets carries it.
type caller struct{ n int }

type callerKey struct{}

// wait is a scripted call (or Sleep) of a caller, parked until the clock reaches wake
// (zero: never) or its context ends.
type wait struct {
	caller *caller
	ctx    context.Context
	wake   time.Time
	fired  bool // the clock reached wake (set inside Advance)
	done   chan struct{}
}

// New returns a kit whose Runtime runs on a fake clock started at DefaultStart, with the
// Recorder installed and a strict configuration store of its own over Source (so neither
// config.DefaultSource nor the environment reaches the test, and a key whose Source sets a
// bad value for it fails its Define: config.Store.SetStrict); opts go to
// command.NewRuntime after the store (WithConfig replaces it) and before the clock. Close
// it at the end of the test (defer k.Close(), or t.Cleanup(k.Close)).
func New(opts ...command.Option) *Kit { return NewAt(DefaultStart, opts...) }

// NewAt is New with the clock started at start. The phase of start within a second moves
// where the buckets, which are aligned to the clock, fall in a test's story.
func NewAt(start time.Time, opts ...command.Option) *Kit {
	clk := clock.NewFake(start)
	src := config.NewMemorySource()
	store := config.NewStore(src)
	store.SetStrict(true)
	opts = append(append([]command.Option{command.WithConfig(store)}, opts...), command.WithClock(clk))
	rt := command.NewRuntime(opts...)
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kit{clk: clk, start: start, rt: rt, src: src, store: store, ctx: ctx, cancel: cancel,
		changed: make(chan struct{}), callers: map[*caller]struct{}{}, waits: map[*wait]struct{}{},
		stuckAfter: defaultStuckAfter}
	k.rec = newRecorder(k)
	return k
}

// SetStuckAfter sets how long, in real time, Settle waits without any caller of Go or
// scripted call moving, and ExpectTransitions for the transitions it names, before they
// give up (10 s by default): a caller waits on something the kit cannot see, or the
// breaker never changes state. Set it before the kit is in use.
func (k *Kit) SetStuckAfter(d time.Duration) { k.stuckAfter = d }

// Runtime returns the kit's Runtime: give it to the commands under test (Setter.Runtime).
func (k *Kit) Runtime() *command.Runtime { return k.rt }

// Clock returns the kit's fake clock. Moving it directly skips what Advance does for the
// callers of Go.
func (k *Kit) Clock() *clock.Fake { return k.clk }

// Source returns the dynamic source of the kit's own configuration store: values set on
// it (config.ExecutionTimeout.SetIn(k.Source(), "Key", d)) apply to the Runtime at once.
func (k *Kit) Source() *config.MemorySource { return k.src }

// Recorder returns what the commands of the Runtime did.
func (k *Kit) Recorder() *Recorder { return k.rec }

// Elapsed returns the time on the kit's clock since its start.
func (k *Kit) Elapsed() time.Duration { return k.clk.Since(k.start) }

// Close ends the contexts of the callers of Go, waits for them to return, and closes the
// Runtime. It is idempotent.
func (k *Kit) Close() {
	k.mu.Lock()
	closed := k.closed
	k.closed = true
	k.mu.Unlock()
	if closed {
		return
	}
	k.cancel()
	k.wg.Wait()
	k.rec.close()
	k.rt.Close()
	k.store.Close()
}

// Go runs call on a goroutine of its own, as one of several callers in flight. call must
// use the context it is given: the scripted calls made with it wait for Advance instead
// of moving the clock themselves. Close cancels it. A panic in call is raised again on
// the test's goroutine by the next Settle (and so Advance and AdvanceUntilQuiet).
func (k *Kit) Go(call func(ctx context.Context)) {
	k.mu.Lock()
	k.started++
	c := &caller{n: k.started}
	k.callers[c] = struct{}{}
	k.changedLocked()
	k.mu.Unlock()
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		defer func() {
			p := recover()
			k.mu.Lock()
			if p != nil && k.panicked == nil {
				k.panicked = fmt.Sprintf("hystrixtest: caller %d of Go panicked: %v\n%s", c.n, p, debug.Stack())
			}
			delete(k.callers, c)
			k.changedLocked()
			k.mu.Unlock()
		}()
		call(context.WithValue(k.ctx, callerKey{}, c))
	}()
}

// Sleep waits until the kit's clock has moved d on, or ctx ends (then it returns ctx's
// error): how a caller of Go paces itself in virtual time. With a context that is not
// one of Go's it moves the clock itself, like a scripted latency.
func (k *Kit) Sleep(ctx context.Context, d time.Duration) error { return k.pause(ctx, d, false) }

// pause is a wait of d on the kit's clock (forever: until ctx ends).
func (k *Kit) pause(ctx context.Context, d time.Duration, forever bool) error {
	if d <= 0 && !forever {
		return nil
	}
	c, ok := ctx.Value(callerKey{}).(*caller)
	if !ok {
		return k.moveFor(ctx, d, forever)
	}
	w := &wait{caller: c, ctx: ctx, done: make(chan struct{})}
	var timer clock.Timer
	k.mu.Lock()
	if !forever {
		w.wake = k.clk.Now().Add(d)
		timer = k.clk.AfterFunc(d, func() { // inside Advance: parked no more before it returns
			k.mu.Lock()
			w.fired = true
			close(w.done)
			k.mu.Unlock()
		})
	}
	k.waits[w] = struct{}{}
	k.changedLocked()
	k.mu.Unlock()
	select {
	case <-w.done:
	case <-ctx.Done():
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.waits, w)
	k.changedLocked()
	if w.fired {
		return nil
	}
	if timer != nil {
		timer.Stop()
	}
	return ctx.Err()
}

// moveFor is a wait on the goroutine of a caller that is not Go's: it moves the clock
// itself, to the end of d or to ctx's deadline, whichever is first (forever: to the
// deadline, or it waits for ctx). It returns ctx's error if ctx ended first.
func (k *Kit) moveFor(ctx context.Context, d time.Duration, forever bool) error {
	end := k.clk.Now().Add(d)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := k.clk.Now()
		if !forever && !now.Before(end) {
			return nil
		}
		next, ok := k.deadline(ctx)
		switch {
		case !ok && forever:
			<-ctx.Done() // nothing on the clock ends it
			return ctx.Err()
		case !ok || (!forever && next.After(end)):
			next = end
		}
		k.clk.Advance(next.Sub(now))
	}
}

// deadline returns ctx's deadline if it is ahead on the fake clock and one of its own: a
// deadline already passed that has not ended ctx no longer applies.
func (k *Kit) deadline(ctx context.Context) (time.Time, bool) {
	d, ok := ctx.Deadline()
	ahead := d.Sub(k.clk.Now())
	if !ok || ahead <= 0 || ahead > realDeadline {
		return time.Time{}, false
	}
	return d, true
}

// changedLocked wakes Settle (k.mu held).
func (k *Kit) changedLocked() {
	close(k.changed)
	k.changed = make(chan struct{})
}

// Settle waits, without moving the clock, until every caller of Go has returned or waits
// in a scripted call or Sleep that the clock has not ended yet. It panics if a caller
// panicked, or if nothing moves for SetStuckAfter's real time (10 s by default): a caller
// waits on something else.
func (k *Kit) Settle() {
	stuck := time.NewTimer(k.stuckAfter)
	defer stuck.Stop()
	for {
		k.mu.Lock()
		busy, p := k.busyLocked(), k.panicked
		changed := k.changed
		k.mu.Unlock()
		switch {
		case p != nil:
			panic(p)
		case busy == nil:
			return
		}
		select {
		case <-changed:
			stuck.Reset(k.stuckAfter)
		case <-stuck.C:
			panic(fmt.Sprintf("hystrixtest: caller %d of Go neither returned nor waited in a scripted call or Sleep for %v: it waits on something the kit's clock cannot end", busy.n, k.stuckAfter))
		}
	}
}

// busyLocked returns a caller of Go that is running (not waiting on the clock), nil when
// there is none (k.mu held).
func (k *Kit) busyLocked() *caller {
	parked := map[*caller]bool{}
	for w := range k.waits {
		if !w.fired && w.ctx.Err() == nil {
			parked[w.caller] = true
		}
	}
	for c := range k.callers {
		if !parked[c] {
			return c
		}
	}
	return nil
}

// next returns the earliest time ahead at which a wait on the clock ends: its wake-up or
// its context's deadline; false when the clock can end none of them.
func (k *Kit) next() (time.Time, bool) {
	k.mu.Lock()
	var waits []*wait
	for w := range k.waits {
		if !w.fired {
			waits = append(waits, w)
		}
	}
	k.mu.Unlock()
	var at time.Time
	found := false
	for _, w := range waits {
		if !w.wake.IsZero() && (!found || w.wake.Before(at)) {
			at, found = w.wake, true
		}
		if d, ok := k.deadline(w.ctx); ok && (!found || d.Before(at)) {
			at, found = d, true
		}
	}
	return at, found
}

// Advance moves the clock d on. It stops at every wake-up and context deadline of the
// scripted calls waiting on the way, and at each lets the callers of Go run (Settle), so
// a caller woken at t makes its next call at t.
func (k *Kit) Advance(d time.Duration) {
	end := k.clk.Now().Add(d)
	for {
		k.Settle()
		now := k.clk.Now()
		next, ok := k.next()
		if !ok || next.After(end) {
			next = end
		}
		k.clk.Advance(next.Sub(now))
		if !next.Before(end) {
			k.Settle()
			return
		}
	}
}

// AdvanceUntilQuiet moves the clock on until no scripted call or Sleep waits on it (from
// one wake-up or deadline to the next, like Advance), then past the bucket in progress of
// every key's rolling stats and health snapshots, and flushes the metrics: every call
// made before it is in the counts, the health counts and the breaker's view. Calls that
// hang with no deadline still wait when it returns: nothing on the clock ends them.
func (k *Kit) AdvanceUntilQuiet() {
	for {
		k.Settle()
		now := k.clk.Now()
		next, ok := k.next()
		if !ok {
			break
		}
		k.clk.Advance(next.Sub(now))
	}
	now := k.clk.Now()
	k.Advance(k.bucketEnd(now).Sub(now))
	k.rt.Metrics().Flush()
}

// bucketEnd returns the first time after now at which the bucket in progress of every
// rolling-stats and health window of the Runtime's keys has closed (buckets are aligned
// to the clock's Unix time).
func (k *Kit) bucketEnd(now time.Time) time.Time {
	end := now.UnixNano()
	after := func(width time.Duration) {
		if w := int64(width); w > 0 {
			end = max(end, (now.UnixNano()/w+1)*w)
		}
	}
	store := k.rt.Config()
	for _, p := range store.Commands() {
		after(config.RollingStatsWindow.In(p).Get() / time.Duration(config.RollingStatsBuckets.In(p).Get()))
		after(config.HealthSnapshotInterval.In(p).Get())
	}
	for _, p := range store.ThreadPools() {
		after(config.ThreadPoolRollingStatsWindow.In(p).Get() / time.Duration(config.ThreadPoolRollingStatsBuckets.In(p).Get()))
	}
	for _, p := range store.Collapsers() {
		after(config.CollapserRollingStatsWindow.In(p).Get() / time.Duration(config.CollapserRollingStatsBuckets.In(p).Get()))
	}
	return time.Unix(0, end)
}
