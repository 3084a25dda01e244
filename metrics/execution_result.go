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
	// its EventCounts, field by field: flags fill the word after fallbackEmit, and the
	// result is 40 bytes in seven fields that the compiler passes in registers (with a
	// receiver, as MarkComplete takes it) instead of copying them through the stack,
	// field by field in and in overlapping 16-byte moves out, which stall the CPU where
	// it cannot forward the loads from the smaller stores. A result is still copied
	// whole where a method of the value is inlined (its receiver) and where a variable
	// is assigned: WithoutLatency and WithEndMarked build theirs field by field, one
	// copy where r.flags |= f; return r would make two, and metrics reads it in place
	// (events).
	set              uint32
	emit             int32
	fallbackEmit     int32
	flags            resultFlags
	rare             uint64
	executionLatency time.Duration
	totalLatency     time.Duration
}

// resultFlags are the yes-or-no facts of an ExecutionResult.
type resultFlags uint32

const (
	flagExecuted resultFlags = 1 << iota // run started
	flagInThread                         // run started on a pool goroutine
	flagCutShort                         // WithoutLatency
	flagEnded                            // WithEndMarked
)

// withEvents returns r with c as its events.
func (r ExecutionResult) withEvents(c EventCounts) ExecutionResult {
	r.set, r.emit, r.fallbackEmit, r.rare = c.set, c.emit, c.fallbackEmit, c.rare
	return r
}

// NewExecutionResult returns in one step the record metrics read of an execution: its
// events, whether run executed (and on a pool goroutine), its execution latency (run only)
// and its total latency. WithoutLatency and WithEndMarked set the rest.
func NewExecutionResult(events EventCounts, executed, inThread bool, executionLatency, totalLatency time.Duration) ExecutionResult {
	var f resultFlags
	if executed {
		f = flagExecuted
		if inThread {
			f |= flagInThread
		}
	}
	return ExecutionResult{set: events.set, emit: events.emit, fallbackEmit: events.fallbackEmit, flags: f,
		rare: events.rare, executionLatency: executionLatency, totalLatency: totalLatency}
}

// WithEvent returns r with one more event of type e.
func (r ExecutionResult) WithEvent(e EventType) ExecutionResult {
	return r.withEvents(r.events().Add(e, 1))
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
	return ExecutionResult{set: r.set, emit: r.emit, fallbackEmit: r.fallbackEmit, flags: r.flags | flagCutShort,
		rare: r.rare, executionLatency: r.executionLatency, totalLatency: r.totalLatency}
}

// WithEndMarked returns r for an execution whose end in flight was marked already
// (MarkEnd, after TryMarkStart): MarkComplete leaves the concurrency alone.
func (r ExecutionResult) WithEndMarked() ExecutionResult {
	return ExecutionResult{set: r.set, emit: r.emit, fallbackEmit: r.fallbackEmit, flags: r.flags | flagEnded,
		rare: r.rare, executionLatency: r.executionLatency, totalLatency: r.totalLatency}
}

// Events returns the recorded events.
func (r ExecutionResult) Events() EventCounts { return r.events() }

// events returns the recorded events, read in place: a method of the value, inlined,
// would copy the result whole first.
func (r *ExecutionResult) events() EventCounts {
	return EventCounts{set: r.set, emit: r.emit, fallbackEmit: r.fallbackEmit, rare: r.rare}
}

// Contains reports whether the result holds an event of type e.
func (r ExecutionResult) Contains(e EventType) bool { return r.events().Contains(e) }

// ExecutionLatency returns the duration of run alone.
func (r ExecutionResult) ExecutionLatency() time.Duration { return r.executionLatency }

// TotalLatency returns the duration as the caller saw it.
func (r ExecutionResult) TotalLatency() time.Duration { return r.totalLatency }

// Executed reports whether run started.
func (r ExecutionResult) Executed() bool { return r.flags&flagExecuted != 0 }

// ExecutedInThread reports whether run started on a pool goroutine.
func (r ExecutionResult) ExecutedInThread() bool { return r.flags&flagInThread != 0 }
