package command

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/rx"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// errNilObservable is the run error of a construct or fallback that returned nil.
var errNilObservable = errors.New("command: construct or fallback returned a nil observable")

// Stream is a command whose run produces many values (Hystrix's
// HystrixObservableCommand): construct returns an rxgo.Observable of T values, and so
// does the optional fallback. Each value adds EMIT (FALLBACK_EMIT from the fallback);
// completion adds SUCCESS (FALLBACK_SUCCESS). It runs under SEMAPHORE isolation (see the
// package documentation) on the subscriber's goroutine; the timeout covers the whole
// stream, and the stream.* properties limit each phase (see "Streams" in the package
// documentation): a failure before the first item counts like a Command's, one after it
// is a MID_STREAM_FAILURE, and WithResume re-opens a cut stream after its last item.
// Single use, like Command; WithCacheKey caches it in the request like a Command.
type Stream[T any] struct {
	execution
	construct func(ctx context.Context) rxgo.Observable
	fallback  func(ctx context.Context, err error) rxgo.Observable

	resume     func(ctx context.Context, last T, err error) rxgo.Observable
	maxResumes int

	sink  func(v T, q quits) handOff // the subscription's, set by the door that began
	holds bool                       // the door's hand-off holds an item beside the source's maxItemsInFlight
	left  chan struct{}              // ToObservable's: closed when its operators stopped reading (leave)
	gone  atomic.Bool                // left is closed
	ended chan struct{}              // ToObservable's: closed when the producer that drove the stream returned
	drove atomic.Bool                // a producer of ToObservable drives the stream
	rec   atomic.Pointer[rx.Replay]  // the items, for Observe and request-cache hits
	fin   rx.Future[struct{}]        // completed when the stream settled

	// Written by the run (call) on the goroutine that drives the chain.
	watch   atomic.Pointer[streamWatch] // the phase limits of the attempt running; nil: none
	items   int                         // items the attempt running delivered, resumes included
	last    T                           // the last item delivered
	resumes atomic.Int32                // how many times the stream was re-opened (Resumes)
}

// NewStream returns a streaming command of the key s names (see New). construct gets a
// context like a Command's run; it ends with the subscription (completion, error,
// timeout or unsubscribe), so sources tied to it are released.
func NewStream[T any](s Setter, construct func(ctx context.Context) rxgo.Observable) *Stream[T] {
	rt := s.normalize()
	return newStream[T](rt.state(&s, true), construct)
}

func newStream[T any](ks *keyState, construct func(ctx context.Context) rxgo.Observable) *Stream[T] {
	st := &Stream[T]{construct: construct}
	st.ks, st.body, st.first.x = ks, st, &st.execution
	return st
}

// WithFallback sets the fallback stream (Hystrix's resumeWithFallback).
func (s *Stream[T]) WithFallback(f func(ctx context.Context, err error) rxgo.Observable) *Stream[T] {
	s.fallback = f
	return s
}

// WithResume sets how a stream cut after an item is re-opened: resume gets the last item
// delivered (the caller maps it to where to start again: an offset, a token) and the
// error that cut the stream, and returns the stream of the items after it. A cut (an
// error the classifier counts as a failure, the idle limit) re-opens it up to max times,
// each a STREAM_RESUMED, within the one execution: its permits, timeout and lifetime
// hold on. Without it a stream that delivered an item is never re-opened (gRPC's rule
// for committed calls); a stream that failed before its first item is not resumed
// either (that is a retry's business).
func (s *Stream[T]) WithResume(max int, resume func(ctx context.Context, last T, err error) rxgo.Observable) *Stream[T] {
	s.maxResumes, s.resume = max, resume
	return s
}

// Resumes returns how many times the stream was re-opened after a cut.
func (s *Stream[T]) Resumes() int { return int(s.resumes.Load()) }

// WithCacheKey sets the request-cache key (see Command.WithCacheKey): duplicates in one
// request context replay every value and the terminal of the first execution.
func (s *Stream[T]) WithCacheKey(key string) *Stream[T] {
	s.rareFields().cacheKey = key
	s.recording()
	return s
}

// recording returns the replay the stream's items are recorded in, making it once.
func (s *Stream[T]) recording() *rx.Replay {
	if rec := s.rec.Load(); rec != nil {
		return rec
	}
	s.rec.CompareAndSwap(nil, &rx.Replay{})
	return s.rec.Load()
}

// ToObservable returns a cold observable: subscribing executes the stream command with
// the subscription's context and forwards its values, then its error if it failed.
// Ending the subscription's context cancels the execution (CANCELLED), and so does an
// operator chain built on it that stops reading (Take, First, TakeUntil, ...). A subscriber that stops reading the channel itself holds the
// stream until the execution timeout or a phase limit ends it. A command is single use: a
// later subscription (as through an operator that subscribes twice) gets the
// BAD_REQUEST_EXCEPTION and leaves the first one alone. With a cache key, subscribe with
// the request's context (Observe(rxgo.WithContext(ctx))).
func (s *Stream[T]) ToObservable() rxgo.Observable {
	s.left, s.ended = make(chan struct{}), make(chan struct{})
	return rx.Stoppable(rxgo.Defer([]rxgo.Producer{s.produce}), s.leave)
}

// produce is ToObservable's producer: it executes the stream for one subscription.
func (s *Stream[T]) produce(ctx context.Context, next chan<- rxgo.Item) {
	err := s.claim(doorOther)
	if err == nil {
		s.drove.Store(true)
		defer close(s.ended)
		s.holds = true
		err = s.drive(ctx, func(v T, q quits) handOff {
			select { // a subscriber already waiting takes it without a look at the rest
			case next <- rxgo.Of(v):
				return taken
			default:
			}
			select {
			case next <- rxgo.Of(v):
				return taken
			case <-ctx.Done():
			case <-q.done:
			case <-q.expired:
			case <-s.left:
			}
			return dropped
		})
	}
	if err != nil {
		select {
		case next <- rxgo.Error(err):
		case <-ctx.Done():
		case <-s.left:
		}
	}
}

// leave ends the stream for ToObservable's operators, which stopped reading, and waits
// until the producer driving it returned: by then the stream ended and gave its permit
// back, so the chain's subscriber sees its channel close after that.
func (s *Stream[T]) leave() {
	if s.gone.CompareAndSwap(false, true) {
		close(s.left)
	}
	if s.drove.Load() {
		<-s.ended
	}
}

// Observe starts the stream command at once, with the caller's context, and returns a hot
// observable replaying all its values and its terminal to every subscriber. Unlike a
// Command's Observe it returns before the outcome: the stream runs on a goroutine of its
// own. The command is cancelled when ctx ends, not when subscribers leave (an operator
// chain that stops reading ends its own subscription). Calling
// Observe again returns the
// same observable; after another door executed the command, Observe returns an observable
// of the BAD_REQUEST_EXCEPTION.
func (s *Stream[T]) Observe(ctx context.Context) rxgo.Observable {
	rec := s.recording()
	if err := s.claim(doorObserve); err != nil {
		if s.door.Load() == doorObserve {
			return rx.Stoppable(rec.Observable(), nil)
		}
		return rx.Error(err)
	}
	s.sink = func(T, quits) handOff { return taken } // emit records the values in rec
	obs := rx.Stoppable(rec.Observable(), nil)
	if err := s.begin(ctx); err != nil {
		rec.Add(rxgo.Error(err))
		return obs
	}
	go func() {
		if err := s.run(); err != nil {
			rec.Add(rxgo.Error(err))
		}
		rec.Finish()
	}()
	return obs
}

// Values returns the stream as a sequence of (value, nil) pairs, then (zero, err) if it
// failed; ranging over it executes the command with ctx on the ranging goroutine.
// Breaking out of the loop (or a panic in its body, which goes on after) cancels the
// stream before the loop statement returns (CANCELLED, its source's context ended).
func (s *Stream[T]) Values(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		more := true
		var panicked any
		err := s.claim(doorOther)
		if err == nil {
			err = s.drive(ctx, func(v T, _ quits) (h handOff) {
				defer func() {
					if p := recover(); p != nil {
						panicked, h = p, takenLast
					}
				}()
				if more = yield(v, nil); !more {
					return takenLast
				}
				return taken
			})
		}
		if panicked != nil {
			panic(panicked)
		}
		if err != nil && more {
			var zero T
			yield(zero, err)
		}
	}
}

// drive executes the claimed stream on the current goroutine, handing its values to sink;
// it returns the error to end the subscription with (nil for a success, a fallback's
// success, or a subscriber that left).
func (s *Stream[T]) drive(ctx context.Context, sink func(T, quits) handOff) error {
	s.sink = sink
	if err := s.begin(ctx); err != nil {
		return err
	}
	return s.run()
}

// begin is execution.begin with the checks of the Stream's own fields.
func (s *Stream[T]) begin(ctx context.Context) error {
	if s.construct == nil {
		return s.badRequest(errNilRun)
	}
	return s.execution.begin(ctx)
}

// run runs the chain on the current goroutine (it never waits for another goroutine: a
// stream's chain is SEMAPHORE's).
func (s *Stream[T]) run() error {
	s.execution.drive()
	return s.err // nil, a business error classified as success, or the failure
}

// The body of the chain (execution.go).

// call runs construct's stream for attempt a, re-opened through resume after a cut, under
// the key's phase limits.
func (s *Stream[T]) call(a *attempt) error {
	defer a.rcCancel(context.Canceled) // construct's context ends with the subscription
	x, ctx := a.x, a.ctx()
	s.items = 0
	w := newStreamWatch(x.ks.rt, limitsOf(x.ks.props), x.now())
	if w != nil {
		s.watch.Store(w)
		defer w.stop()
	}
	open := func() rxgo.Observable { return s.construct(ctx) }
	for {
		err := s.forward(x, a, open, ctx, &x.emits)
		if !s.resumable(a, err) {
			return err
		}
		s.resumes.Add(1)
		a.addEvent(metrics.StreamResumed)
		if err == ErrStreamIdleTimeout {
			a.addEvent(metrics.StreamIdleTimeout)
		}
		if w != nil {
			w.resumed(x.now())
		}
		last := s.last
		open = func() rxgo.Observable { return s.resume(ctx, last, err) }
	}
}

// resumable reports whether a cut by err is re-opened: a resume function is set, the
// stream delivered an item, err is a failure that is not the lifetime's or the overflow's,
// the subscriber is still there and resumes are left. The shared retry budget, once there,
// is asked here too.
func (s *Stream[T]) resumable(a *attempt, err error) bool {
	if err == nil || err == errUnsubscribed || s.resume == nil || s.items == 0 ||
		err == ErrStreamLifetime || err == ErrStreamOverflow || int(s.resumes.Load()) >= s.maxResumes ||
		a.ctx().Err() != nil || !a.race.running() {
		return false
	}
	c, _ := a.classify(err)
	return c == ClassFailure
}

// watching returns the phase limits of the attempt running (StreamEstablished).
func (s *Stream[T]) watching() *streamWatch { return s.watch.Load() }

// failure returns the kind of the failure of attempt a (streamFailure).
func (s *Stream[T]) failure(a *attempt, err error) kind { return streamFailure(a, s.items > 0, err) }

func (s *Stream[T]) callFallback(x *execution, cause error) error {
	return s.forward(x, nil, func() rxgo.Observable { return s.fallback(x.parent, cause) }, x.parent, &x.fbEmits)
}

// forward subscribes to the observable open returns and hands its values to the sink
// until it terminates, ctx ends, a phase limit passes, or the subscriber leaves; it returns
// the stream's error. Each value delivered counts as an EMIT of attempt a (a FALLBACK_EMIT
// of x when a is nil: the fallback's), n holding the count, and goes to the emit hooks.
func (s *Stream[T]) forward(x *execution, a *attempt, open func() rxgo.Observable, ctx context.Context,
	n *atomic.Int32) error {
	src, err := construct(open)
	if err != nil {
		return err
	}
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	fl := flowOf(x.ks.props, s.holds)
	opts := []rxgo.Option{rxgo.WithContext(sub)}
	if fl.buf > 0 {
		opts = append(opts, rxgo.WithBufferedChannel(fl.buf))
	}
	items := src.Observe(opts...)
	ended := false
	defer func() {
		if !ended { // a source that does not honour its context must not stay blocked on its send
			go drainSource(items)
		}
	}()
	q := quits{done: ctx.Done()}
	var w *streamWatch
	if a != nil {
		if w = s.watch.Load(); w != nil {
			q.expired = w.done
		}
	}
	for {
		var it rxgo.Item
		var ok bool
		select {
		case it, ok = <-items:
		case <-q.done:
			return ctx.Err()
		case <-q.expired:
			return w.why
		case <-s.left:
			return errUnsubscribed
		}
		switch {
		case !ok:
			ended = true
			return nil
		case it.Error():
			return it.E
		}
		v, ok := it.V.(T)
		if !ok && it.V != nil {
			return fmt.Errorf("command: the stream emitted a %T, not a %v", it.V, reflect.TypeFor[T]())
		}
		if a != nil && !a.race.running() {
			return nil // the timer won: the late values are dropped
		}
		var offered time.Duration
		if w != nil || fl.fail {
			offered = x.now()
		}
		if w != nil {
			w.handing(offered)
		}
		h := s.emit(v, q)
		if h == dropped { // not delivered: not counted
			return s.refusal(ctx, w)
		}
		var took time.Duration
		if w != nil || fl.fail {
			took = x.now()
		}
		if w != nil {
			w.handed(took)
		}
		n.Add(1)
		if a != nil {
			s.items++
			s.last = v
			a.addEvent(metrics.Emit)
		} else {
			x.addEvent(metrics.FallbackEmit)
		}
		s.emitHooks(x, a, v)
		switch {
		case h == takenLast:
			return errUnsubscribed
		case fl.fail && len(items) >= fl.buf && took-offered >= fl.grace:
			return ErrStreamOverflow // the subscriber took too long while the source waited at the bound
		}
	}
}

// drainSource reads a source's channel to its end.
func drainSource(items <-chan rxgo.Item) {
	for range items {
	}
}

// quits are what ends a hand-off to the subscriber besides the subscriber itself: the
// stream's context (the timeout, the caller) and its phase limits (nil: none).
type quits struct{ done, expired <-chan struct{} }

// handOff is what became of an item handed to the sink.
type handOff uint8

const (
	taken     handOff = iota // the subscriber took it and waits for the next
	takenLast                // the subscriber took it and left (a broken range loop)
	dropped                  // the hand-off ended before the subscriber took it
)

// refusal returns why a hand-off ended before the subscriber took the item: the stream's
// context ended, a phase limit passed, or the subscriber left.
func (s *Stream[T]) refusal(ctx context.Context, w *streamWatch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w != nil {
		select {
		case <-w.done:
			return w.why
		default:
		}
	}
	return errUnsubscribed
}

// flow is a stream key's bound on items in flight (stream.maxItemsInFlight, stream.overflow).
type flow struct {
	buf   int           // the source's channel buffer; 0: the source's channel as it is
	fail  bool          // a subscriber behind fails the stream instead of holding the source
	grace time.Duration // how late a subscriber may take an item at the bound (fail)
}

// flowOf returns a key's flow for a door whose hand-off holds one item itself (holds) or
// none: the items in flight are the source's buffer plus the one held.
func flowOf(p *config.CommandProperties, holds bool) flow {
	max := config.StreamMaxItemsInFlight.In(p).Get()
	f := flow{buf: max}
	if holds && max > 0 {
		f.buf = max - 1
	}
	if max > 0 && config.StreamOverflow.In(p).Get() == config.StreamFail {
		f.fail, f.grace = true, config.StreamOverflowGrace.In(p).Get()
	}
	return f
}

// emit records v for Observe and request-cache hits and hands it to the subscription.
func (s *Stream[T]) emit(v T, q quits) handOff {
	if rec := s.rec.Load(); rec != nil {
		rec.Add(rxgo.Of(v))
	}
	return s.sink(v, q)
}

// emitHooks calls the hooks for one value of attempt a's run, or of the fallback (a nil).
func (s *Stream[T]) emitHooks(x *execution, a *attempt, v T) {
	h := x.hook
	if h == nil || hooks.IgnoresEmits(h) {
		return
	}
	x.ks.rt.safeHook(func() {
		if a != nil {
			h.OnExecutionEmit(a.ctx(), x.ks.info, v)
		} else {
			h.OnFallbackEmit(x.parent, x.ks.info, v)
		}
		h.OnEmit(x.parent, x.ks.info, v)
	})
}

// construct calls a user function returning an observable; a panic or a nil observable
// is an error.
func construct(f func() rxgo.Observable) (obs rxgo.Observable, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = newPanicError(p)
		}
	}()
	if obs = f(); obs == nil {
		return nil, errNilObservable
	}
	return obs, nil
}

func (s *Stream[T]) won(*attempt) {}

func (s *Stream[T]) emitted(*attempt) {}

func (s *Stream[T]) hasFallback() bool { return s.fallback != nil }

func (s *Stream[T]) settled(*execution, verdict) { s.fin.Complete(struct{}{}, nil) }

func (s *Stream[T]) done() <-chan struct{} { return s.fin.Done() }

func (s *Stream[T]) replays(other body) bool {
	_, ok := other.(*Stream[T])
	return ok
}

func (s *Stream[T]) replay(x *execution, orig *execution) {
	items, _ := orig.body.(*Stream[T]).rec.Load().Items()
	for _, it := range items {
		if s.emit(it.V.(T), quits{done: x.parent.Done()}) != taken {
			return
		}
	}
}

func (s *Stream[T]) streams() bool { return true }
