package command

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/metrics"
	"github.com/rxhystrix/rxhystrix/observable"
)

// errNilObservable is the run error of a construct or fallback that returned nil.
var errNilObservable = errors.New("command: construct or fallback returned a nil observable")

// Stream is a command whose run produces many values (Hystrix's
// HystrixObservableCommand): construct returns an rxgo.Observable of T values, and so
// does the optional fallback. Each value adds EMIT (FALLBACK_EMIT from the fallback);
// completion adds SUCCESS (FALLBACK_SUCCESS). It runs under SEMAPHORE isolation (see the
// package documentation) on the subscriber's goroutine; the timeout covers the whole
// stream. Single use, like Command; WithCacheKey caches it in the request like a Command.
type Stream[T any] struct {
	execution
	construct func(ctx context.Context) rxgo.Observable
	fallback  func(ctx context.Context, err error) rxgo.Observable

	sink func(T) bool                // the subscription's; false: the subscriber left
	rec  *observable.Replay          // the items, for Observe and request-cache hits
	fin  observable.Future[struct{}] // completed when the stream settled
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
	st.ks, st.body = ks, st
	return st
}

// WithFallback sets the fallback stream (Hystrix's resumeWithFallback).
func (s *Stream[T]) WithFallback(f func(ctx context.Context, err error) rxgo.Observable) *Stream[T] {
	s.fallback = f
	return s
}

// WithCacheKey sets the request-cache key (see Command.WithCacheKey): duplicates in one
// request context replay every value and the terminal of the first execution.
func (s *Stream[T]) WithCacheKey(key string) *Stream[T] {
	s.rareFields().cacheKey = key
	s.rec = &observable.Replay{}
	return s
}

// ToObservable returns a cold observable: subscribing executes the stream command with
// the subscription's context and forwards its values, then its error if it failed.
// Ending the subscription's context cancels the execution (CANCELLED).
func (s *Stream[T]) ToObservable() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		s.sink = func(v T) bool { return rxgo.Of(v).SendContext(ctx, next) }
		if err := s.drive(ctx); err != nil {
			rxgo.Error(err).SendContext(ctx, next)
		}
	}})
}

// Observe starts the stream command at once, with the caller's context, and returns a hot
// observable replaying all its values and its terminal to every subscriber. The command is
// cancelled when ctx ends, not when subscribers leave.
func (s *Stream[T]) Observe(ctx context.Context) rxgo.Observable {
	rec := s.rec
	if rec == nil {
		rec = &observable.Replay{}
		s.rec = rec
	}
	s.sink = func(T) bool { return true } // emit records the values in rec
	if err := s.begin(ctx); err != nil {
		rec.Add(rxgo.Error(err))
		return rec.Observable()
	}
	go func() {
		if err := s.run(); err != nil {
			rec.Add(rxgo.Error(err))
		}
		rec.Finish()
	}()
	return rec.Observable()
}

// Values returns the stream as a sequence of (value, nil) pairs, then (zero, err) if it
// failed; ranging over it executes the command with ctx on the ranging goroutine, and
// breaking out of the loop cancels it.
func (s *Stream[T]) Values(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		more := true
		s.sink = func(v T) bool { // true: delivered; once the loop broke, nothing is
			if !more {
				return false
			}
			more = yield(v, nil)
			return true
		}
		if err := s.drive(ctx); err != nil && more {
			var zero T
			yield(zero, err)
		}
	}
}

// drive executes the stream on the current goroutine; it returns the error to end the
// subscription with (nil for a success, a fallback's success, or a subscriber that left).
func (s *Stream[T]) drive(ctx context.Context) error {
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
	return s.execution.begin(ctx, false)
}

// run runs the chain (the caller is the only waiter: it never suspends asynchronously).
func (s *Stream[T]) run() error {
	x := &s.execution
	if x.chain.run(x, pending) == suspended {
		x.await()
	}
	return s.err // nil, a business error classified as success, or the failure
}

// The body of the chain (execution.go).

func (s *Stream[T]) call(x *execution) error {
	defer x.rcCancel(context.Canceled) // construct's context ends with the subscription
	ctx := x.runCtx()
	return s.forward(x, func() rxgo.Observable { return s.construct(ctx) }, ctx, metrics.Emit, &x.emits)
}

func (s *Stream[T]) callFallback(x *execution, cause error) error {
	return s.forward(x, func() rxgo.Observable { return s.fallback(x.parent, cause) }, x.parent,
		metrics.FallbackEmit, &x.fbEmits)
}

// forward subscribes to the observable make returns and hands its values to the sink
// until it terminates, ctx ends, or the subscriber leaves; it returns the stream's error.
// Each value delivered counts as an event of type e (n holds the count) and goes to the
// emit hooks.
func (s *Stream[T]) forward(x *execution, open func() rxgo.Observable, ctx context.Context,
	e metrics.EventType, n *atomic.Int32) error {
	src, err := construct(open)
	if err != nil {
		return err
	}
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	items := src.Observe(rxgo.WithContext(sub))
	for {
		var it rxgo.Item
		var ok bool
		select {
		case it, ok = <-items:
		case <-ctx.Done():
			return ctx.Err()
		}
		switch {
		case !ok:
			return nil
		case it.Error():
			return it.E
		}
		v, ok := it.V.(T)
		if !ok && it.V != nil {
			return fmt.Errorf("command: the stream emitted a %T, not a %v", it.V, reflect.TypeFor[T]())
		}
		if e == metrics.Emit && !x.racing() {
			return nil // the timer won: the late values are dropped
		}
		if !s.emit(v) {
			return errUnsubscribed // not delivered: not counted
		}
		n.Add(1)
		x.addEvent(e)
		s.emitHooks(x, e, v)
	}
}

// emit records v for Observe and request-cache hits and hands it to the subscription.
func (s *Stream[T]) emit(v T) bool {
	if s.rec != nil {
		s.rec.Add(rxgo.Of(v))
	}
	return s.sink(v)
}

// emitHooks calls the hooks for one value of the run (e EMIT) or of the fallback.
func (s *Stream[T]) emitHooks(x *execution, e metrics.EventType, v T) {
	h := x.hook
	if h == nil {
		return
	}
	x.ks.rt.safeHook(func() {
		if e == metrics.Emit {
			h.OnExecutionEmit(x.runCtx(), x.ks.info, v)
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

func (s *Stream[T]) won() {}

func (s *Stream[T]) emitted(*execution) {}

func (s *Stream[T]) hasFallback() bool { return s.fallback != nil }

func (s *Stream[T]) settled(*execution, verdict) { s.fin.Complete(struct{}{}, nil) }

func (s *Stream[T]) done() <-chan struct{} { return s.fin.Done() }

func (s *Stream[T]) replays(other body) bool {
	_, ok := other.(*Stream[T])
	return ok
}

func (s *Stream[T]) replay(_ *execution, orig *execution) {
	items, _ := orig.body.(*Stream[T]).rec.Items()
	for _, it := range items {
		if !s.emit(it.V.(T)) {
			return
		}
	}
}

func (s *Stream[T]) streams() bool { return true }
