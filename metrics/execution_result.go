package metrics

import "time"

// ExecutionResult is the immutable record of one command execution that metrics read
// (Hystrix's ExecutionResult, less what only the command's own accessors need): its events
// (with counts for EMIT, FALLBACK_EMIT, COLLAPSED and STREAM_RESUMED), execution latency (run only) and
// total latency, and whether run executed and whether on a pool goroutine. It is small
// enough to pass in registers, so recording a completion costs the caller no stack for it.
//
// It is a value: the With methods return a changed copy and never allocate. The zero
// value is an empty result. EXCEPTION_THROWN is not stored: metrics derive it from the
// exception-producing events (see EventType.IsExceptionProducing).
type ExecutionResult struct {
	events           EventCounts
	executed         bool
	executedInThread bool
	cutShort         bool // WithoutLatency
	ended            bool // WithEndMarked
	executionLatency time.Duration
	totalLatency     time.Duration
}

// NewExecutionResult returns in one step the record metrics read of an execution: its
// events, whether run executed (and on a pool goroutine), its execution latency (run only)
// and its total latency. WithoutLatency and WithEndMarked set the rest.
func NewExecutionResult(events EventCounts, executed, inThread bool, executionLatency, totalLatency time.Duration) ExecutionResult {
	return ExecutionResult{events: events, executed: executed, executedInThread: executed && inThread,
		executionLatency: executionLatency, totalLatency: totalLatency}
}

// WithEvent returns r with one more event of type e.
func (r ExecutionResult) WithEvent(e EventType) ExecutionResult {
	r.events = r.events.Add(e, 1)
	return r
}

// WithTotalLatency returns r with the duration from invocation to the terminal event as
// the caller saw it (fallback included).
func (r ExecutionResult) WithTotalLatency(d time.Duration) ExecutionResult {
	r.totalLatency = d
	return r
}

// WithoutLatency returns r marked as an execution whose latencies join no distribution:
// its run was cut short by another's outcome (a hedge's loser), so its latency says
// nothing of the dependency's and would drag a percentile it is measured against.
func (r ExecutionResult) WithoutLatency() ExecutionResult {
	r.cutShort = true
	return r
}

// WithEndMarked returns r for an execution whose end in flight was marked already
// (MarkEnd, after TryMarkStart): MarkComplete leaves the concurrency alone.
func (r ExecutionResult) WithEndMarked() ExecutionResult {
	r.ended = true
	return r
}

// Events returns the recorded events.
func (r ExecutionResult) Events() EventCounts { return r.events }

// Contains reports whether the result holds an event of type e.
func (r ExecutionResult) Contains(e EventType) bool { return r.events.Contains(e) }

// ExecutionLatency returns the duration of run alone.
func (r ExecutionResult) ExecutionLatency() time.Duration { return r.executionLatency }

// TotalLatency returns the duration as the caller saw it.
func (r ExecutionResult) TotalLatency() time.Duration { return r.totalLatency }

// Executed reports whether run started.
func (r ExecutionResult) Executed() bool { return r.executed }

// ExecutedInThread reports whether run started on a pool goroutine.
func (r ExecutionResult) ExecutedInThread() bool { return r.executedInThread }
