package metrics

import (
	"math/bits"
	"time"
)

// The builders below set what NewExecutionResult sets in one step, one field at a time,
// for tests that build results by hand.

// withEventCount returns r with n more events of type e (n > 1 matters only for EMIT,
// FALLBACK_EMIT, COLLAPSED and STREAM_RESUMED).
func (r ExecutionResult) withEventCount(e EventType, n int) ExecutionResult {
	return r.withEvents(r.Events().Add(e, n))
}

// withEventCounts returns r with the events of c added (counts of repeatable types add
// up), as many withEventCount calls would.
func (r ExecutionResult) withEventCounts(c EventCounts) ExecutionResult {
	r.set |= c.set
	r.emit += c.emit
	r.fallbackEmit += c.fallbackEmit
	ev := r.Events()
	return r.withEvents(ev.withRare(ev.collapsed()+c.collapsed(), ev.resumed()+c.resumed()))
}

// withExecutionLatency returns r with the duration of run (or construct) alone.
func (r ExecutionResult) withExecutionLatency(d time.Duration) ExecutionResult {
	r.executionLatency = d
	return r
}

// withExecuted returns r marked as executed (run started; it counts in the latency
// distributions and its MarkComplete ends the concurrency a MarkStart began), on a pool
// goroutine when inThread.
func (r ExecutionResult) withExecuted(inThread bool) ExecutionResult {
	r.flags = r.flags&^flagInThread | flagExecuted
	if inThread {
		r.flags |= flagInThread
	}
	return r
}

// plus returns h with the events of one execution added: the health the window folds in.
func (h HealthCounts) plus(c EventCounts) HealthCounts {
	total, errs := healthOf(c)
	return NewHealthCounts(h.TotalRequests+int64(total), h.ErrorCount+int64(errs))
}

// healthOf returns the health total and error contribution of one execution's events.
func healthOf(c EventCounts) (total, errs uint32) {
	ok := uint32(bits.OnesCount32(c.set & healthyMask))
	errs = uint32(bits.OnesCount32(c.set & unhealthyMask))
	return ok + errs, errs
}
