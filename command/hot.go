package command

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/observable"
)

// outcomes is what the front doors that do not wait, and request-cache hits, read the
// outcome from: Queue's future (also the hits' wait), and the observable Observe returns,
// which is the outcomes themselves: it replays the future's outcome to every subscriber.
// Observe, once the outcome is known (at once under SEMAPHORE isolation), hands out a
// channel that already holds the item, with no goroutine (RxJava's scalar fusion); before
// that, and for every operator chained on it (Map, ...), the embedded rxgo.Defer observable
// waits for the outcome on a producer goroutine of the subscription, as any rxgo
// observable does. Execute does without, so a Command that only executes is smaller.
type outcomes[T any] struct {
	fut observable.Future[T]
	rxgo.Observable
	producers [1]rxgo.Producer
	ready     atomic.Bool // the observable is made (hot)
}

// hot returns the outcomes as Observe's observable, made by the first Observe (won, the
// one that claimed the command) while any other waits for it.
func (o *outcomes[T]) hot(won bool) *outcomes[T] {
	if won {
		o.producers[0] = o.produce
		o.Observable = rxgo.Defer(o.producers[:])
		o.ready.Store(true)
	}
	for !o.ready.Load() { // a concurrent Observe, for the few instructions above
		runtime.Gosched()
	}
	return o
}

// Observe subscribes: a ready outcome comes in a buffered channel, with no goroutine.
func (o *outcomes[T]) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	if !o.fut.Ready() {
		return o.Observable.Observe(opts...)
	}
	ch := make(chan rxgo.Item, 1)
	ch <- item(o.fut.Get(context.Background()))
	close(ch)
	return ch
}

// produce is the producer of a subscription made before the outcome was known.
func (o *outcomes[T]) produce(ctx context.Context, next chan<- rxgo.Item) {
	sendOutcome(ctx, next, o.fut.Get)
}

// item is the rxgo item of an outcome.
func item[T any](v T, err error) rxgo.Item {
	if err != nil {
		return rxgo.Error(err)
	}
	return rxgo.Of(v)
}
