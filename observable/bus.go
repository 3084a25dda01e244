package observable

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"
)

// Bus is a subject: many publishers, many subscribers, each subscriber with its own
// bounded Queue. Publish never blocks and never allocates: it reads the subscriber set
// from an atomic snapshot (replaced copy-on-write under a mutex when subscribers come and
// go) and offers the value to each subscriber's queue, a lock-free ring (one
// compare-and-swap and one store; no lock a consumer could hold). A value that finds a
// queue full is counted in Dropped, never lost silently. The zero Bus is not usable;
// call NewBus.
type Bus[T any] struct {
	buffer  int
	subs    atomic.Pointer[[]*Queue[T]]
	mu      sync.Mutex // serialises the copy-on-write of subs
	dropped atomic.Uint64
}

// NewBus returns a bus whose subscribers each get a queue of the given size (rounded up
// to a power of two, at least 2).
func NewBus[T any](buffer int) *Bus[T] {
	return &Bus[T]{buffer: max(buffer, 1)}
}

// Publish offers v to every current subscriber without blocking. A subscriber whose
// queue is full misses v and Dropped grows by one. With no subscribers v goes nowhere and
// nothing counts as dropped. A Publish racing with an unsubscribe may still reach the
// leaving subscriber (or not; it is never counted as dropped then).
func (b *Bus[T]) Publish(v T) {
	p := b.subs.Load()
	if p == nil {
		return
	}
	for _, q := range *p {
		if !q.closed.Load() && !q.Offer(v) {
			b.dropped.Add(1)
		}
	}
}

// Subscribe adds a subscriber and returns its queue, which only the caller may poll.
// When ctx ends the subscriber is removed and the queue closed (values still queued can
// be polled first; Queue.Done tells when none is left). A ctx that never ends keeps the
// subscription for the life of the bus. Subscribe is a Source[T].
func (b *Bus[T]) Subscribe(ctx context.Context) *Queue[T] {
	q := NewQueue[T](b.buffer)
	b.mu.Lock()
	var cur []*Queue[T]
	if p := b.subs.Load(); p != nil {
		cur = *p
	}
	next := make([]*Queue[T], len(cur), len(cur)+1)
	copy(next, cur)
	next = append(next, q)
	b.subs.Store(&next)
	b.mu.Unlock()
	context.AfterFunc(ctx, func() { b.remove(q) })
	return q
}

// remove takes q out of the snapshot and closes it. A publisher still holding an older
// snapshot may offer to q afterwards: the value is then either polled by a consumer
// that has not finished yet or ignored with the queue, as if published just after the
// unsubscribe. Nothing can panic (a queue, unlike a channel, accepts a late offer).
func (b *Bus[T]) remove(q *Queue[T]) {
	b.mu.Lock()
	cur := *b.subs.Load()
	next := make([]*Queue[T], 0, len(cur))
	for _, o := range cur {
		if o != q {
			next = append(next, o)
		}
	}
	b.subs.Store(&next)
	b.mu.Unlock()
	q.Close()
}

// Observe returns a cold observable over the bus: each subscription is a new bus
// subscription that lasts until the subscriber's context ends, so subscribe with
// rxgo.WithContext and a context that is eventually cancelled. Every value costs an rxgo
// item (an interface boxing); hot consumers should use Subscribe or Buckets instead.
func (b *Bus[T]) Observe() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		q := b.Subscribe(ctx)
		for {
			for v, ok := q.Poll(); ok; v, ok = q.Poll() {
				if !rxgo.Of(v).SendContext(ctx, next) {
					return
				}
			}
			if q.Done() {
				return
			}
			select {
			case <-q.Ready():
			case <-ctx.Done():
				return
			}
		}
	}})
}

// Dropped returns how many deliveries failed because a subscriber's queue was full.
func (b *Bus[T]) Dropped() uint64 { return b.dropped.Load() }

// Subscribers returns the number of current subscribers.
func (b *Bus[T]) Subscribers() int {
	if p := b.subs.Load(); p != nil {
		return len(*p)
	}
	return 0
}
