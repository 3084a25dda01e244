package bulkhead

import (
	"runtime/debug"
	"time"
)

// worker is one goroutine of a Pool. While idle it waits on tasks; a nil task tells it to
// exit (the pool has already removed it from its counts).
type worker struct {
	tasks chan Task // capacity 1: a send to an idle worker never blocks
	// idleSince is when the worker went idle above coreSize (its keepAlive runs from then);
	// zero while it idles within coreSize.
	idleSince time.Time
}

// start starts a worker whose first task is task. p.mu is held.
func (p *Pool) start(task Task) {
	w := &worker{tasks: make(chan Task, 1)}
	p.workers++
	p.active++
	p.largest = max(p.largest, p.workers)
	p.done.Add(1)
	go p.work(w, task)
}

// work runs tasks until the pool retires the worker.
func (p *Pool) work(w *worker, task Task) {
	defer p.done.Done()
	normal := false
	defer func() {
		if !normal {
			p.abandon()
			p.finish(task)
		}
	}()
	for task != nil {
		p.run(task)
		var idle bool
		if task, idle = p.next(w, task); idle {
			task = <-w.tasks // parked here, not in next: one frame less to return through once woken
		}
	}
	normal = true
}

// run runs task, recovering (and logging) a panic so that the worker survives it.
func (p *Pool) run(task Task) {
	defer func() {
		if r := recover(); r != nil {
			p.logger.Error("isolation: task panicked; the worker goes on",
				"pool", p.key, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	task.Run()
}

// finish calls t's Finish if it is a Finisher, recovering (and logging) a panic.
func (p *Pool) finish(t Task) {
	f, ok := t.(Finisher)
	if !ok {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			p.logger.Error("isolation: Finish panicked; the worker goes on",
				"pool", p.key, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	f.Finish()
}

// next counts the finished task done, finishes it (Finisher) and returns the worker's next
// task: the oldest queued one, or idle true when the worker went idle (the caller then
// waits for its next task on w.tasks); nil when the worker must exit: it is above the
// (lowered) maximum size, or the pool is closed and the queue is empty.
func (p *Pool) next(w *worker, done Task) (next Task, idle bool) {
	p.mu.Lock()
	p.completed++
	core, maxSize := p.set.sizes()
	if p.workers > maxSize {
		p.workers--
		p.active--
		p.mu.Unlock()
		p.finish(done)
		return nil, false
	}
	if t := p.queue.pop(); t != nil {
		p.mu.Unlock()
		p.finish(done)
		return t, false
	}
	p.active--
	if p.closed.Load() {
		p.workers--
		p.mu.Unlock()
		p.finish(done)
		return nil, false
	}
	p.adapt(core, maxSize)
	if p.workers > core { // only workers above core need the time (the clock is not free)
		w.idleSince = p.clk.Now()
		p.armReaper()
	} else {
		w.idleSince = time.Time{}
	}
	p.idle = append(p.idle, w)
	p.mu.Unlock()
	p.finish(done) // idle already: a caller it wakes that submits at once finds this worker
	return nil, true
}

// abandon fixes the counts when a task ended its worker's goroutine (runtime.Goexit), and
// starts a replacement worker for the queue if tasks wait there.
func (p *Pool) abandon() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.completed++
	p.workers--
	p.active--
	if t := p.queue.pop(); t != nil {
		p.start(t)
	}
}

// retire tells the n longest-idle workers to exit and drops them from the counts. p.mu is
// held.
func (p *Pool) retire(n int) {
	for _, w := range p.idle[:n] {
		w.tasks <- nil
	}
	p.workers -= n
	rest := copy(p.idle, p.idle[n:])
	clear(p.idle[rest:])
	p.idle = p.idle[:rest]
}

// armReaper schedules reap unless it is already scheduled. p.mu is held.
func (p *Pool) armReaper() {
	if p.reaper == nil && !p.closed.Load() {
		p.reaper = p.clk.AfterFunc(p.keepAlive(), p.reapFn)
	}
}

// reap retires the workers above coreSize that have been idle for keepAlive, longest idle
// first, and re-arms itself for the next one that may retire.
func (p *Pool) reap() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reaper = nil
	if p.closed.Load() {
		return
	}
	core, maxSize := p.set.sizes()
	p.adapt(core, maxSize)
	keep := p.keepAlive()
	now := p.clk.Now()
	n := 0
	for n < len(p.idle) && p.workers-n > core && now.Sub(p.idle[n].idleSince) >= keep {
		n++
	}
	p.retire(n)
	if p.workers > core && len(p.idle) > 0 {
		p.reaper = p.clk.AfterFunc(p.idle[0].idleSince.Add(keep).Sub(now), p.reapFn)
	}
}
