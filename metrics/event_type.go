package metrics

// EventType is one of the events a command execution records (Hystrix's
// HystrixEventType), in Hystrix enum order. The zero value is Emit.
type EventType uint8

// Command event types, in Hystrix order.
const (
	Emit EventType = iota
	Success
	Failure
	Timeout
	BadRequest
	ShortCircuited
	ThreadPoolRejected
	SemaphoreRejected
	FallbackEmit
	FallbackSuccess
	FallbackFailure
	FallbackRejection
	FallbackDisabled
	FallbackMissing
	ExceptionThrown
	ResponseFromCache
	Cancelled
	Collapsed
	CommandMaxActive

	// NumEventTypes is the number of command event types.
	NumEventTypes = int(CommandMaxActive) + 1
)

var eventTypeNames = [NumEventTypes]string{
	"EMIT", "SUCCESS", "FAILURE", "TIMEOUT", "BAD_REQUEST", "SHORT_CIRCUITED",
	"THREAD_POOL_REJECTED", "SEMAPHORE_REJECTED", "FALLBACK_EMIT", "FALLBACK_SUCCESS",
	"FALLBACK_FAILURE", "FALLBACK_REJECTION", "FALLBACK_DISABLED", "FALLBACK_MISSING",
	"EXCEPTION_THROWN", "RESPONSE_FROM_CACHE", "CANCELLED", "COLLAPSED", "COMMAND_MAX_ACTIVE",
}

const (
	terminalMask = 1<<Success | 1<<BadRequest | 1<<FallbackSuccess | 1<<FallbackFailure |
		1<<FallbackRejection | 1<<FallbackDisabled | 1<<FallbackMissing |
		1<<ResponseFromCache | 1<<Cancelled
	exceptionMask = 1<<BadRequest | 1<<FallbackFailure | 1<<FallbackDisabled |
		1<<FallbackMissing | 1<<FallbackRejection
	countedMask = 1<<Emit | 1<<FallbackEmit | 1<<Collapsed
)

// AllEventTypes returns every command event type in Hystrix order.
func AllEventTypes() []EventType {
	all := make([]EventType, NumEventTypes)
	for i := range all {
		all[i] = EventType(i)
	}
	return all
}

// String returns the Hystrix name, e.g. "SUCCESS" or "THREAD_POOL_REJECTED".
func (e EventType) String() string {
	if int(e) < NumEventTypes {
		return eventTypeNames[e]
	}
	return "UNKNOWN"
}

// IsTerminal reports whether e ends an execution (SUCCESS, BAD_REQUEST, the fallback
// outcomes, RESPONSE_FROM_CACHE, CANCELLED).
func (e EventType) IsTerminal() bool { return e < 32 && terminalMask&(1<<e) != 0 }

// IsExceptionProducing reports whether e makes the caller see an error, so that it counts
// as EXCEPTION_THROWN: BAD_REQUEST, FALLBACK_FAILURE, FALLBACK_DISABLED, FALLBACK_MISSING,
// FALLBACK_REJECTION.
func (e EventType) IsExceptionProducing() bool { return e < 32 && exceptionMask&(1<<e) != 0 }

// isCounted reports whether an execution can record e more than once (EMIT, FALLBACK_EMIT,
// COLLAPSED carry a count; every other type is present or absent).
func (e EventType) isCounted() bool { return e < 32 && countedMask&(1<<e) != 0 }

// ThreadPoolEventType is an event of a thread pool (Hystrix's
// HystrixEventType.ThreadPool).
type ThreadPoolEventType uint8

// Thread-pool event types, in Hystrix order.
const (
	// Executed: a command ran on the pool (SUCCESS, FAILURE, TIMEOUT or BAD_REQUEST).
	Executed ThreadPoolEventType = iota
	// Rejected: the pool refused a command (THREAD_POOL_REJECTED).
	Rejected

	// NumThreadPoolEventTypes is the number of thread-pool event types.
	NumThreadPoolEventTypes = int(Rejected) + 1
)

// String returns "EXECUTED" or "REJECTED".
func (e ThreadPoolEventType) String() string {
	switch e {
	case Executed:
		return "EXECUTED"
	case Rejected:
		return "REJECTED"
	}
	return "UNKNOWN"
}

// ThreadPoolEventFrom maps a command event to its thread-pool event, as Hystrix does:
// SUCCESS, FAILURE, TIMEOUT, BAD_REQUEST -> EXECUTED; THREAD_POOL_REJECTED -> REJECTED.
func ThreadPoolEventFrom(e EventType) (ThreadPoolEventType, bool) {
	switch e {
	case Success, Failure, Timeout, BadRequest:
		return Executed, true
	case ThreadPoolRejected:
		return Rejected, true
	}
	return 0, false
}

// CollapserEventType is an event of a request collapser (Hystrix's
// HystrixEventType.Collapser).
type CollapserEventType uint8

// Collapser event types, in Hystrix order.
const (
	// BatchExecuted: one batch command ran.
	BatchExecuted CollapserEventType = iota
	// AddedToBatch: one request joined a batch.
	AddedToBatch
	// CollapserResponseFromCache: a request was answered from the collapser's request cache.
	CollapserResponseFromCache

	// NumCollapserEventTypes is the number of collapser event types.
	NumCollapserEventTypes = int(CollapserResponseFromCache) + 1
)

// String returns "BATCH_EXECUTED", "ADDED_TO_BATCH" or "RESPONSE_FROM_CACHE".
func (e CollapserEventType) String() string {
	switch e {
	case BatchExecuted:
		return "BATCH_EXECUTED"
	case AddedToBatch:
		return "ADDED_TO_BATCH"
	case CollapserResponseFromCache:
		return "RESPONSE_FROM_CACHE"
	}
	return "UNKNOWN"
}
