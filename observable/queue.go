package observable

import (
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// Queue is a bounded, lock-free queue with many producers and a single consumer: the
// buffer of one Bus subscriber. Producers never block and never allocate; the consumer
// drains it by polling (Poll) and, when it has nothing to do, parks on Ready until an
// item arrives or the queue is closed.
//
// It is a ring of sequence-numbered slots (Dmitry Vyukov's bounded queue): a producer
// claims the next position with one compare-and-swap on the tail, writes the item into
// the position's slot and publishes it by storing the slot's sequence number; the
// consumer reads a slot once its sequence says it holds the item of the position it
// expects, then frees the slot for the producer one lap later. There is no lock, so a
// producer and the consumer never wait for each other, and the consumer's polling does
// not take a cache line a producer needs (except the slots themselves, which must move).
// A producer claims with a compare-and-swap rather than an atomic add because a claim
// must fail when the ring is full: a position taken by an add could be neither filled
// (its slot still holds an item the consumer has not read) nor given back.
//
// Items come out in the order their positions were claimed. A producer descheduled
// between its claim and its store holds back the items claimed after it until it runs
// again (they are not lost; the consumer sees them on a later Poll).
type Queue[T any] struct {
	_    cacheLinePad
	tail atomic.Uint64 // next position to claim (producers)
	_    cacheLinePad
	head uint64 // next position to read (consumer only)
	_    cacheLinePad
	// Read on every Offer, written only when the consumer parks, wakes or the queue
	// closes: a line of its own, so the consumer's head updates do not invalidate it.
	parked atomic.Bool
	closed atomic.Bool
	mask   uint64
	slots  []queueSlot[T]
	wake   chan struct{} // capacity 1: a token means "look again"
	_      cacheLinePad
}

type cacheLinePad [64]byte

// queueSlot holds the item of position seq-1 when seq == pos+1, and is free for position
// pos when seq == pos (it starts at its index, the position of its first lap).
type queueSlot[T any] struct {
	seq atomic.Uint64
	v   T
}

// NewQueue returns an empty queue holding up to size items, size rounded up to a power
// of two, at least 2 (with one slot its "holds position p" and "free for position p+1"
// sequence numbers would coincide).
func NewQueue[T any](size int) *Queue[T] {
	n := uint64(2)
	if size > 2 {
		n = 1 << bits.Len64(uint64(size-1))
	}
	q := &Queue[T]{mask: n - 1, slots: make([]queueSlot[T], n), wake: make(chan struct{}, 1)}
	for i := range q.slots {
		q.slots[i].seq.Store(uint64(i))
	}
	return q
}

// Cap returns how many items the queue holds when full.
func (q *Queue[T]) Cap() int { return len(q.slots) }

// Offer appends v and reports whether there was room. It never blocks (it retries only
// when another producer claimed the same position first) and never allocates; it is
// safe for any number of concurrent producers. Offer after Close still succeeds while
// there is room, but the consumer may never see the item.
func (q *Queue[T]) Offer(v T) bool {
	pos := q.tail.Load()
	for {
		s := &q.slots[pos&q.mask]
		switch d := int64(s.seq.Load() - pos); {
		case d == 0: // free for pos
			if q.tail.CompareAndSwap(pos, pos+1) {
				s.v = v
				s.seq.Store(pos + 1)
				// After the store: either the consumer, parking, sees the item, or
				// we see it parked (both accesses are sequentially consistent).
				if q.parked.Load() {
					q.unpark()
				} else if pos&(q.mask>>1) == 0 {
					q.signal() // another half lap: nudge a polling consumer (see Nudge)
				}
				prefetch(unsafe.Pointer(&q.slots[(pos+1)&q.mask])) // the next offer's slot: see prefetch
				return true
			}
			pos = q.tail.Load()
		case d < 0: // still holds the item of pos-len: full
			return false
		default: // another producer claimed pos already
			pos = q.tail.Load()
		}
	}
}

// Poll removes and returns the oldest item; ok is false when none is ready. Only the
// single consumer may call it.
func (q *Queue[T]) Poll() (v T, ok bool) {
	s := &q.slots[q.head&q.mask]
	if s.seq.Load() != q.head+1 {
		return v, false
	}
	v = s.v
	var zero T
	s.v = zero // let the collector have what v points to
	s.seq.Store(q.head + q.mask + 1)
	q.head++
	return v, true
}

// Ready parks the consumer: it returns a channel that receives once an item was offered
// after the call or the queue is closed (at once if an item is ready already). A receive
// can also be spurious; the consumer polls again either way. Only the consumer may call
// it. Parking costs producers nothing until one of them finds the consumer parked.
func (q *Queue[T]) Ready() <-chan struct{} {
	select {
	case <-q.wake: // a stale token from an earlier park
	default:
	}
	q.parked.Store(true)
	if q.ready() || q.closed.Load() {
		q.unpark()
	}
	return q.wake
}

// Nudge returns the channel Offer signals, without the consumer parking, each time the
// producers pass another half of the ring. A consumer that polls on a timer selects on it
// too, so a burst that would fill the queue between two polls wakes it early instead of
// overflowing. Only the consumer may receive from it.
func (q *Queue[T]) Nudge() <-chan struct{} { return q.wake }

// ready reports whether Poll would return an item (consumer only).
func (q *Queue[T]) ready() bool { return q.slots[q.head&q.mask].seq.Load() == q.head+1 }

// unpark wakes the parked consumer once.
func (q *Queue[T]) unpark() {
	if q.parked.CompareAndSwap(true, false) {
		q.signal()
	}
}

func (q *Queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Close marks the queue closed and wakes the consumer. Items offered before Close can
// still be polled; Done tells the consumer when none is left. Close is idempotent and
// safe for concurrent use.
func (q *Queue[T]) Close() {
	q.closed.Store(true)
	q.parked.Store(false)
	q.signal()
}

// Closed reports whether Close was called.
func (q *Queue[T]) Closed() bool { return q.closed.Load() }

// Done reports whether the queue is closed and every item offered before Close has been
// polled (consumer only). Closed is read first: once it is seen, every item offered
// before Close is visible to Poll.
func (q *Queue[T]) Done() bool { return q.closed.Load() && !q.ready() }
