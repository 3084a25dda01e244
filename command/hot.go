package command

import (
	"context"
	"sync"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/observable"
)

// hot is the observable Command.Observe returns: it replays the command's outcome, read
// from the command's future, to every subscriber. Observe, once the outcome is known (at
// once under SEMAPHORE isolation), hands out a channel that already holds the item, with
// no goroutine (RxJava's scalar fusion); before that, and for every operator chained on it
// (Map, ...), the embedded rxgo.Defer observable waits for the outcome on a producer
// goroutine of the subscription, as any rxgo observable does.
type hot[T any] struct {
	rxgo.Observable
	fut       *observable.Future[T]
	producers [1]rxgo.Producer
	once      sync.Once
}

// of returns h as the observable of fut, made ready by the first call.
func (h *hot[T]) of(fut *observable.Future[T]) *hot[T] {
	h.once.Do(func() {
		h.fut = fut
		h.producers[0] = h.produce
		h.Observable = rxgo.Defer(h.producers[:])
	})
	return h
}

// Observe subscribes: a ready outcome comes in a buffered channel, with no goroutine.
func (h *hot[T]) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	if !h.fut.Ready() {
		return h.Observable.Observe(opts...)
	}
	ch := make(chan rxgo.Item, 1)
	ch <- item(h.fut.Get(context.Background()))
	close(ch)
	return ch
}

// produce is the producer of a subscription made before the outcome was known.
func (h *hot[T]) produce(ctx context.Context, next chan<- rxgo.Item) {
	sendOutcome(ctx, next, h.fut.Get)
}

// item is the rxgo item of an outcome.
func item[T any](v T, err error) rxgo.Item {
	if err != nil {
		return rxgo.Error(err)
	}
	return rxgo.Of(v)
}
