package command

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
)

// deadlines is the timer of one command key: the deadlines of its racing executions in
// one list ordered by deadline, and one clock timer armed for the earliest. Executions of a
// key share a timeout, so a new deadline almost always goes to the tail and adding one is a
// lock and a link; an execution that ends first unlinks itself. The timer is re-armed only
// when it fires (for whatever head the list has then) or when a new head is earlier than
// the armed time, so under steady traffic it fires about once per timeout period, however
// many executions pass: no runtime timer and no allocation per execution.
type deadlines struct {
	rt *Runtime // its clock and base time

	mu         sync.Mutex
	head, tail *execution
	timer      clock.Timer
	armedFor   time.Duration // the deadline the timer fires at, valid while timer != nil
}

// deadline is an execution's place in its key's deadline queue (guarded by deadlines.mu;
// queued may be read without it, to skip the lock for executions never queued).
type deadline struct {
	at         time.Duration // offset from the runtime's base
	prev, next *execution
	queued     atomic.Bool
}

// add queues x to expire at offset at.
func (d *deadlines) add(x *execution, at time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	dl := &x.rc.dl
	dl.at = at
	dl.queued.Store(true)
	after := d.tail // the last execution due no later than x
	for after != nil && after.rc.dl.at > at {
		after = after.rc.dl.prev
	}
	dl.prev = after
	if after == nil {
		dl.next, d.head = d.head, x
	} else {
		dl.next, after.rc.dl.next = after.rc.dl.next, x
	}
	if dl.next == nil {
		d.tail = x
	} else {
		dl.next.rc.dl.prev = x
	}
	if d.timer == nil || at < d.armedFor {
		d.armLocked(at)
	}
}

// remove unlinks x if it is queued; it is safe to call more than once.
func (d *deadlines) remove(x *execution) {
	if !x.rc.dl.queued.Load() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.unlinkLocked(x)
}

func (d *deadlines) unlinkLocked(x *execution) {
	dl := &x.rc.dl
	if !dl.queued.Load() {
		return
	}
	if dl.prev == nil {
		d.head = dl.next
	} else {
		dl.prev.rc.dl.next = dl.next
	}
	if dl.next == nil {
		d.tail = dl.prev
	} else {
		dl.next.rc.dl.prev = dl.prev
	}
	dl.prev, dl.next = nil, nil
	dl.queued.Store(false)
}

// armLocked (re)arms the timer for offset at.
func (d *deadlines) armLocked(at time.Duration) {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.armedFor = at
	d.timer = d.rt.clk.AfterFunc(at-d.rt.clk.Since(d.rt.base), d.fire)
}

// fire expires every execution whose deadline has passed and re-arms for the next one.
func (d *deadlines) fire() {
	now := d.rt.clk.Since(d.rt.base)
	var due []*execution
	d.mu.Lock()
	for x := d.head; x != nil && x.rc.dl.at <= now; x = d.head {
		d.unlinkLocked(x)
		due = append(due, x)
	}
	d.timer = nil
	if d.head != nil {
		d.armLocked(d.head.rc.dl.at)
	}
	d.mu.Unlock()
	for _, x := range due {
		x.expire()
	}
}
