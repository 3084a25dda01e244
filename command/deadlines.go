package command

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
)

// deadlines is the timer of one command key. Its racing attempts wait in a few queues
// (stripes, so that parallel callers share no lock), each ordered by deadline with one
// clock timer armed for its earliest. Executions of a key share a timeout, so a new
// deadline almost always goes to the tail and adding one is a lock and a link; an attempt
// that ends first unlinks itself. A timer is re-armed only when it fires (for whatever head
// its queue has then) or when a new head is earlier than the armed time, so under steady
// traffic each fires about once per timeout period, however many executions pass: no
// runtime timer and no allocation per execution. The stripes are made on the first
// deadline: a key whose runs never wait for their context costs one pointer.
type deadlines struct {
	rt      *Runtime // its clock and base time
	stripes atomic.Pointer[[]deadlineQueue]
}

// deadlineQueue is one stripe of a key's deadlines.
type deadlineQueue struct {
	rt         *Runtime
	mu         sync.Mutex
	head, tail *attempt
	timer      clock.Timer
	armedFor   time.Duration // the deadline the timer fires at, valid while timer != nil
	_          [64]byte      // each stripe on cache lines of its own
}

// deadline is an attempt's place in its key's deadlines (guarded by its queue's mu;
// queued may be read without it, to skip the lock for attempts never queued).
type deadline struct {
	at         time.Duration // offset from the runtime's base
	q          *deadlineQueue
	prev, next *attempt
	queued     atomic.Bool
	taken      atomic.Bool // a timer took the attempt out to expire it: it may still hold it
}

// unknownNow is the now of a caller of add that has no recent clock reading.
const unknownNow time.Duration = -1

// add queues a to expire at offset at, on a stripe picked at random. now is a recent
// reading of the clock (an offset from the base, no later than the present) or unknownNow;
// the clock is read only if the stripe's timer must be armed and now is unknown. It
// reports, without queueing a, whether a's deadline had passed when that reading was taken.
func (d *deadlines) add(a *attempt, at, now time.Duration) (overdue bool) {
	qs := d.stripes.Load()
	if qs == nil {
		qs = d.makeStripes()
	}
	return (*qs)[rand.Uint32()&uint32(len(*qs)-1)].add(a, at, now)
}

// makeStripes makes the stripes once: a power of two, twice GOMAXPROCS, at most 16.
func (d *deadlines) makeStripes() *[]deadlineQueue {
	n := 1
	for n < 2*runtime.GOMAXPROCS(0) && n < 16 {
		n *= 2
	}
	qs := make([]deadlineQueue, n)
	for i := range qs {
		qs[i].rt = d.rt
	}
	if d.stripes.CompareAndSwap(nil, &qs) {
		return &qs
	}
	return d.stripes.Load()
}

// remove unlinks a if it is queued; it is safe to call more than once.
func (d *deadlines) remove(a *attempt) {
	dl := &a.rc.dl
	if !dl.queued.Load() {
		return
	}
	q := dl.q
	q.mu.Lock()
	defer q.mu.Unlock()
	q.unlinkLocked(a)
}

func (q *deadlineQueue) add(a *attempt, at, now time.Duration) (overdue bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	arm := q.timer == nil || at < q.armedFor // a timer armed no later than at ends a on time
	if arm {
		if now == unknownNow {
			now = q.rt.clk.Since(q.rt.base)
		}
		if at <= now {
			return true
		}
	}
	dl := &a.rc.dl
	dl.at, dl.q = at, q
	dl.queued.Store(true)
	after := q.tail // the last attempt due no later than a
	for after != nil && after.rc.dl.at > at {
		after = after.rc.dl.prev
	}
	dl.prev = after
	if after == nil {
		dl.next, q.head = q.head, a
	} else {
		dl.next, after.rc.dl.next = after.rc.dl.next, a
	}
	if dl.next == nil {
		q.tail = a
	} else {
		dl.next.rc.dl.prev = a
	}
	for arm {
		q.armLocked(at, now)
		// A clock that moved between the reading and the arming (a fake clock a test
		// advanced meanwhile, a long preemption) leaves the timer late by as much: read
		// again, and arm again or end a now.
		later := q.rt.clk.Since(q.rt.base)
		if later-now < time.Millisecond {
			break
		}
		if at <= later {
			q.unlinkLocked(a)
			return true
		}
		now = later
	}
	return false
}

func (q *deadlineQueue) unlinkLocked(a *attempt) {
	dl := &a.rc.dl
	if !dl.queued.Load() {
		return
	}
	if dl.prev == nil {
		q.head = dl.next
	} else {
		dl.prev.rc.dl.next = dl.next
	}
	if dl.next == nil {
		q.tail = dl.prev
	} else {
		dl.next.rc.dl.prev = dl.prev
	}
	dl.prev, dl.next = nil, nil
	dl.queued.Store(false)
}

// armLocked (re)arms the timer for offset at, reckoned from now (a recent reading: the
// timer fires at most as late as that reading is old).
func (q *deadlineQueue) armLocked(at, now time.Duration) {
	if q.timer != nil {
		q.timer.Stop()
	}
	q.armedFor = at
	q.timer = q.rt.clk.AfterFunc(at-now, q.fire)
}

// fire expires every attempt whose deadline has passed and re-arms for the next one.
func (q *deadlineQueue) fire() {
	now := q.rt.clk.Since(q.rt.base)
	var due []*attempt
	q.mu.Lock()
	for a := q.head; a != nil && a.rc.dl.at <= now; a = q.head {
		a.rc.dl.taken.Store(true) // before the unlink: who sees it unqueued sees it taken
		q.unlinkLocked(a)
		due = append(due, a)
	}
	q.timer = nil
	if q.head != nil {
		q.armLocked(q.head.rc.dl.at, now)
	}
	q.mu.Unlock()
	for _, a := range due {
		a.expire()
	}
}
