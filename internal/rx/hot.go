package rx

import (
	"context"

	"github.com/reactivex/rxgo/v2"
)

// Observable returns the hot observable of f's outcome, a view of f (what users are told
// of it is observable.Future.Observable's doc).
func (f *Future[T]) Observable() rxgo.Observable { return View((*hot[T])(f)) }

// hot is the source of a future's hot observable (Future.Observable): the future under
// another method set, so that the observable costs no allocation.
type hot[T any] Future[T]

// future returns h as its future.
func (h *hot[T]) future() *Future[T] { return (*Future[T])(h) }

// Observe subscribes: a known outcome comes in a buffered channel, with no goroutine.
func (h *hot[T]) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	if !h.future().Ready() {
		return rxgo.Defer([]rxgo.Producer{h.produce}, opts...).Observe() // its Observe copies nothing then
	}
	return filled(h.v, h.err)
}

// Rx returns an rxgo observable of the outcome: each subscription waits for it on a
// producer goroutine.
func (h *hot[T]) Rx() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{h.produce})
}

// produce is the producer of a subscription of Rx.
func (h *hot[T]) produce(ctx context.Context, next chan<- rxgo.Item) {
	v, err := h.future().Get(ctx)
	if ctx.Err() != nil { // the subscription ended, with or before the outcome
		return
	}
	Emit(ctx, next, v, err)
}

// filled returns a closed channel holding the item of an outcome: a subscription that
// needs no producer.
func filled[T any](v T, err error) <-chan rxgo.Item {
	ch := make(chan rxgo.Item, 1)
	Send(ch, v, err)
	close(ch)
	return ch
}

// Send puts the item of an outcome on ch, which has room for it.
func Send[T any](ch chan<- rxgo.Item, v T, err error) { ch <- item(v, err) }

// Emit sends the item of an outcome (a value, or an error for a non-nil err) on next,
// unless ctx ends first; it reports whether it sent. A subscriber already waiting takes it
// at once, without a look at ctx (whose Done channel may then never be made).
func Emit[T any](ctx context.Context, next chan<- rxgo.Item, v T, err error) bool {
	it := item(v, err)
	select {
	case next <- it:
		return true
	default:
		return it.SendContext(ctx, next)
	}
}

// item is the rxgo item of an outcome: an error item for a non-nil err, else a value item.
func item[T any](v T, err error) rxgo.Item {
	if err != nil {
		return rxgo.Error(err)
	}
	return rxgo.Of(v)
}
