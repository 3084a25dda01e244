package command

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// The errors a stream ends with when one of its limits passes (stream.* properties), or
// when its subscriber is behind (ErrStreamOverflow). A limit that passes before the first
// item is an ESTABLISH_TIMEOUT, whose caller error is a TIMEOUT *Error; after it, a
// FAILURE marked MID_STREAM_FAILURE (with IDLE_TIMEOUT for the idle limit), whose caller
// error is a COMMAND_EXCEPTION *Error. Either wraps one of these.
var (
	ErrStreamEstablishTimeout = errors.New("command: stream not established within stream.establishTimeoutInMilliseconds")
	ErrStreamFirstItemTimeout = errors.New("command: no first item within stream.firstItemTimeoutInMilliseconds")
	ErrStreamIdleTimeout      = errors.New("command: no item within stream.idleTimeoutInMilliseconds")
	ErrStreamLifetime         = errors.New("command: stream outlived stream.maxLifetimeInMilliseconds")
	ErrStreamOverflow         = errors.New("command: the subscriber took an item later than stream.overflowGraceInMilliseconds with stream.maxItemsInFlight items waiting")
)

// streamFailure returns the kind of a stream's failure in attempt a, delivered telling
// whether it delivered an item. Before the first item: ESTABLISH_TIMEOUT for a limit that
// passed, FAILURE for any other failure (both count like a command's). After it: a FAILURE
// as Hystrix counts it, marked MID_STREAM_FAILURE (and IDLE_TIMEOUT for the idle limit);
// without the FAILURE when the key sets stream.cutsCountForHealth=false or the subscriber
// overflowed (its slowness says nothing against the dependency).
func streamFailure(a *attempt, delivered bool, err error) kind {
	switch {
	case delivered:
		if errors.Is(err, ErrStreamIdleTimeout) {
			a.addEvent(metrics.StreamIdleTimeout)
		}
		if err == ErrStreamOverflow || !config.StreamCutsCountForHealth.In(a.x.ks.props).Get() {
			return cutUncounted
		}
		a.addEvent(metrics.StreamMidFailure)
		return cut
	case errors.Is(err, ErrStreamEstablishTimeout) || errors.Is(err, ErrStreamFirstItemTimeout) ||
		errors.Is(err, ErrStreamLifetime):
		return notEstablished
	}
	return failed
}

// streamLimits are a stream key's phase limits, 0 for off.
type streamLimits struct {
	establish, firstItem, idle, lifetime time.Duration
}

func limitsOf(p *config.CommandProperties) streamLimits {
	return streamLimits{config.StreamEstablishTimeout.In(p).Get(), config.StreamFirstItemTimeout.In(p).Get(),
		config.StreamIdleTimeout.In(p).Get(), config.StreamMaxLifetime.In(p).Get()}
}

// StreamEstablished tells the stream whose construct (or resume) got ctx that it is
// established (a transport's response headers came): its establishment limit stops and
// its first-item limit starts. Without it the first item establishes the stream. It does
// nothing for another context.
func StreamEstablished(ctx context.Context) {
	if a, ok := ctx.Value(attemptKey{}).(*attempt); ok {
		if w, ok := a.x.body.(interface{ watching() *streamWatch }); ok {
			if sw := w.watching(); sw != nil {
				sw.establish(a.x.now())
			}
		}
	}
}

// streamWatch enforces one stream's phase limits with one clock timer, armed for the
// earliest limit due. An item costs a clock read and an atomic store: the timer is re-armed
// only when it fires before the limit it was armed for (items moved the idle deadline on)
// or when a phase begins whose limit comes sooner (establishment, the first item, a
// resume). done is closed, with why set, when a limit passes.
type streamWatch struct {
	rt   *Runtime
	lim  streamLimits
	born time.Duration // the stream's start: the lifetime counts from it

	last       atomic.Int64 // when the loop last waited for the source: after an item's delivery, or a (re)opening
	delivering atomic.Bool  // the subscriber has an item: the idle clock waits
	connItem   bool         // the current connection delivered an item (written by the loop under mu)

	mu        sync.Mutex
	conn      time.Duration // the current connection's start: the stream's, or its last resume's
	estAt     time.Duration // when the current connection was established; -1: not yet
	delivered bool          // the stream delivered an item: the idle limit applies
	timer     clock.Timer
	armed     time.Duration // when timer fires, valid while timer != nil
	gen       uint64        // counts the timers armed: a stale one's callback does nothing
	done      chan struct{}
	why       error // the limit that passed, set before done is closed
	over      bool  // a limit passed, or the stream ended: nothing arms again
}

// newStreamWatch starts watching a stream opened at now, or returns nil when its key
// sets no limit.
func newStreamWatch(rt *Runtime, lim streamLimits, now time.Duration) *streamWatch {
	if lim == (streamLimits{}) {
		return nil
	}
	w := &streamWatch{rt: rt, lim: lim, born: now, conn: now, estAt: -1, done: make(chan struct{})}
	w.last.Store(int64(now))
	w.mu.Lock()
	w.armLocked(now)
	w.mu.Unlock()
	return w
}

// establish marks the current connection established at now.
func (w *streamWatch) establish(now time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.estAt < 0 {
		w.estAt = now
		w.armLocked(now)
	}
}

// handing marks an item received at now, about to be handed to the subscriber.
func (w *streamWatch) handing(now time.Duration) {
	w.delivering.Store(true)
	if !w.connItem { // the first item of the connection: a phase begins
		w.mu.Lock()
		w.connItem, w.delivered = true, true
		if w.estAt < 0 {
			w.estAt = now
		}
		w.armLocked(now)
		w.mu.Unlock()
	}
}

// handed marks the subscriber done with an item at now: the idle clock starts again.
func (w *streamWatch) handed(now time.Duration) {
	w.last.Store(int64(now))
	w.delivering.Store(false)
}

// resumed starts a new connection at now (a resume): its establishment and first-item
// limits start again, the idle clock starts from now, and a limit that cut the last
// connection is watched again (done is a new channel).
func (w *streamWatch) resumed(now time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.why != nil {
		w.done, w.why, w.over = make(chan struct{}), nil, false
	}
	w.conn, w.estAt, w.connItem = now, -1, false
	w.last.Store(int64(now))
	w.armLocked(now)
}

// stop ends the watch: its timer is stopped and nothing fires any more.
func (w *streamWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.over = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}

// dueLocked returns the earliest limit due as of now and its error (nil: none applies).
func (w *streamWatch) dueLocked(now time.Duration) (time.Duration, error) {
	due, why := time.Duration(math.MaxInt64), error(nil)
	earlier := func(at time.Duration, err error) {
		if at < due {
			due, why = at, err
		}
	}
	if w.lim.lifetime > 0 {
		earlier(w.born+w.lim.lifetime, ErrStreamLifetime)
	}
	switch {
	case w.estAt < 0:
		if w.lim.establish > 0 {
			earlier(w.conn+w.lim.establish, ErrStreamEstablishTimeout)
		}
	case !w.connItem:
		if w.lim.firstItem > 0 {
			earlier(w.estAt+w.lim.firstItem, ErrStreamFirstItemTimeout)
		}
	}
	if w.delivered && w.lim.idle > 0 {
		last := time.Duration(w.last.Load())
		if w.delivering.Load() {
			last = now // the subscriber holds an item: the source is not idle
		}
		earlier(last+w.lim.idle, ErrStreamIdleTimeout)
	}
	return due, why
}

// armLocked ends the stream if a limit passed at now, or arms the timer for the earliest
// limit due unless it fires before that already (then it checks again when it fires).
func (w *streamWatch) armLocked(now time.Duration) {
	if w.over {
		return
	}
	due, why := w.dueLocked(now)
	switch {
	case why == nil:
		return
	case due <= now:
		w.why, w.over = why, true
		close(w.done)
		return
	case w.timer != nil && w.armed <= due:
		return
	case w.timer != nil:
		w.timer.Stop()
	}
	w.gen++
	gen := w.gen
	w.armed = due
	w.timer = w.rt.clk.AfterFunc(due-now, func() { w.fire(gen) })
}

// fire is the timer's callback: it ends the stream if a limit passed, or re-arms.
func (w *streamWatch) fire(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen != w.gen {
		return
	}
	w.timer = nil
	w.armLocked(w.rt.clk.Since(w.rt.base))
}
