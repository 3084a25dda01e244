package metrics

import (
	"context"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"
)

// subscription is one subscription to a Feed: a bounded buffer between the publishers
// (callers of MarkComplete, the roll), which never wait, and its producer, which hands
// the items on to the subscriber.
type subscription[T any] struct {
	key string // the key followed; "" for every key
	// full is set by a publisher whose send found buf full and cleared by the producer
	// when it takes an item: while it is set, publishers count a miss without a send.
	full   atomic.Bool
	misses counters // shares the Feed's stripes: sum[0] counts the misses

	buf   chan T
	ended atomic.Bool // the producer is gone: what reaches buf now is missed
}

// wants reports whether the subscription follows key.
func (s *subscription[T]) wants(key string) bool { return s.key == "" || s.key == key }

// offer hands v to the subscription without waiting, or counts a miss on stripe i of
// the Feed's counters.
func (s *subscription[T]) offer(v T, i uint32) {
	if !s.send(v) {
		s.sendFull(v, i)
	}
}

// sendFull is offer after a send found buf full: it sets full and tries once more, so
// that full is never left set on an empty buffer. Had the producer emptied buf in
// between, the second send succeeds and the producer clears full when it takes the item;
// else buf still holds items the producer takes after full was set. A second failure is
// a miss.
func (s *subscription[T]) sendFull(v T, i uint32) {
	s.full.Store(true)
	if !s.send(v) {
		s.misses.miss(i)
	}
}

// send puts v into buf if it has room. A publisher that filled buf after the producer
// ended takes one item back.
func (s *subscription[T]) send(v T) bool {
	select {
	case s.buf <- v:
		if s.ended.Load() {
			s.reclaim(false)
		}
		return true
	default:
		return false
	}
}

// deliver hands the buffered items to next until the subscriber's context ends or closed
// is closed (the producer); an item taken but not delivered is missed.
func (s *subscription[T]) deliver(ctx context.Context, next chan<- rxgo.Item, closed <-chan struct{}) {
	for {
		var v T
		select {
		case v = <-s.buf:
		case <-ctx.Done():
			return
		case <-closed:
			return
		}
		s.took()
		select {
		case next <- rxgo.Of(v):
			continue
		case <-ctx.Done():
		case <-closed:
		}
		s.misses.miss(0)
		return
	}
}

// took clears full: the producer took an item out of buf.
func (s *subscription[T]) took() {
	if s.full.Load() {
		s.full.Store(false)
	}
}

// end marks the producer gone and counts what buf holds as missed (the producer, after
// unregistering).
func (s *subscription[T]) end() {
	s.ended.Store(true)
	s.reclaim(true)
}

// reclaim takes items back out of buf once the producer is gone and counts them missed:
// all of them (the producer, at its end) or one (a publisher whose send came after).
// Each item is taken, and counted, once: a publisher that saw ended false sent before
// end began, so the producer's reclaim finds its item; one that saw it true takes one
// item back after its send, so the buffer ends empty.
func (s *subscription[T]) reclaim(all bool) {
	for {
		select {
		case <-s.buf:
			s.misses.miss(0)
			if all {
				continue
			}
		default:
		}
		return
	}
}
