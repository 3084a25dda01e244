package observable

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"
)

// Bus is a subject: many publishers, many subscribers, each subscriber with its own
// buffered channel. Publish never blocks and never allocates: it reads the subscriber set
// from an atomic snapshot (replaced copy-on-write under a mutex when subscribers come and
// go) and does a non-blocking send to each subscriber. A send that finds a full buffer is
// counted in Dropped, never lost silently. The zero Bus is not usable; call NewBus.
type Bus[T any] struct {
	buffer  int
	subs    atomic.Pointer[[]*busSub[T]]
	mu      sync.Mutex // serialises the copy-on-write of subs
	dropped atomic.Uint64
}

// busSub is one subscription. closed and sending close the race between a Publish that
// still holds an old snapshot and the removal that closes ch: a publisher raises sending
// before it reads closed, the remover sets closed before it waits for sending to reach
// zero, so (with Go's sequentially consistent atomics) either the publisher sees closed
// and skips, or the remover sees the publisher and waits for its non-blocking send.
type busSub[T any] struct {
	ch      chan T
	sending atomic.Int32
	closed  atomic.Bool
}

// NewBus returns a bus whose subscribers each get a channel with the given buffer. With
// buffer 0 a value reaches only subscribers blocked in a receive at that moment.
func NewBus[T any](buffer int) *Bus[T] {
	return &Bus[T]{buffer: max(buffer, 0)}
}

// Publish hands v to every current subscriber without blocking. A subscriber whose buffer
// is full misses v and Dropped grows by one. With no subscribers v goes nowhere and
// nothing counts as dropped.
func (b *Bus[T]) Publish(v T) {
	p := b.subs.Load()
	if p == nil {
		return
	}
	for _, s := range *p {
		s.sending.Add(1)
		if !s.closed.Load() {
			select {
			case s.ch <- v:
			default:
				b.dropped.Add(1)
			}
		}
		s.sending.Add(-1)
	}
}

// Subscribe adds a subscriber and returns its channel. When ctx ends the subscriber is
// removed and the channel closed (values still buffered can be drained first). A ctx that
// never ends keeps the subscription for the life of the bus. Subscribe is a Source[T].
func (b *Bus[T]) Subscribe(ctx context.Context) <-chan T {
	s := &busSub[T]{ch: make(chan T, b.buffer)}
	b.mu.Lock()
	var cur []*busSub[T]
	if p := b.subs.Load(); p != nil {
		cur = *p
	}
	next := make([]*busSub[T], len(cur), len(cur)+1)
	copy(next, cur)
	next = append(next, s)
	b.subs.Store(&next)
	b.mu.Unlock()
	context.AfterFunc(ctx, func() { b.remove(s) })
	return s.ch
}

// remove takes s out of the snapshot, waits for in-flight sends to s and closes its channel.
func (b *Bus[T]) remove(s *busSub[T]) {
	b.mu.Lock()
	cur := *b.subs.Load()
	next := make([]*busSub[T], 0, len(cur))
	for _, o := range cur {
		if o != s {
			next = append(next, o)
		}
	}
	b.subs.Store(&next)
	b.mu.Unlock()

	s.closed.Store(true)
	for s.sending.Load() != 0 {
		runtime.Gosched()
	}
	close(s.ch)
}

// Observe returns a cold observable over the bus: each subscription is a new bus
// subscription that lasts until the subscriber's context ends, so subscribe with
// rxgo.WithContext and a context that is eventually cancelled. Every value costs an rxgo
// item (an interface boxing); hot consumers should use Subscribe or Buckets instead.
func (b *Bus[T]) Observe() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		ch := b.Subscribe(ctx)
		for {
			select {
			case v, ok := <-ch:
				if !ok || !rxgo.Of(v).SendContext(ctx, next) {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}})
}

// Dropped returns how many deliveries failed because a subscriber's buffer was full.
func (b *Bus[T]) Dropped() uint64 { return b.dropped.Load() }

// Subscribers returns the number of current subscribers.
func (b *Bus[T]) Subscribers() int {
	if p := b.subs.Load(); p != nil {
		return len(*p)
	}
	return 0
}
