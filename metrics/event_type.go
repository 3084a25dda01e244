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

	// The rate limiter and fault injection stages (beyond Hystrix).

	// RateLimited: the key's rate limiter refused the execution (no permit within
	// rateLimit.maxWaitInMilliseconds); the fallback answers, as for a rejection.
	RateLimited
	// FaultInjected: the fault injection stage picked the execution; the fault's own
	// outcome (FAILURE, TIMEOUT, ...) is recorded next to it.
	FaultInjected

	// Retries and hedges (command/stage_retry.go) and their budget (internal/budget).

	// Retry is an attempt beyond the first: each one a completion of its own, so its
	// rolling count is the number of retries.
	Retry
	// BudgetExhausted is an extra attempt the budget refused (the command's outcome is
	// that of the attempts it made).
	BudgetExhausted

	// ADAPTIVE isolation (command/stage_adaptive.go): the adaptive concurrency limit
	// refused the execution (its reason is the cause: the limit, the queue, the
	// criticality's share).
	AdaptiveRejected

	// Stream phases and resume (command/stream.go, stream_watch.go): beyond Hystrix.

	// StreamEstablishTimeout: a stream's establishment, first-item or lifetime limit
	// passed before its first item; unhealthy, like TIMEOUT.
	StreamEstablishTimeout
	// StreamIdleTimeout: a stream's idle limit passed between two items (with
	// MID_STREAM_FAILURE).
	StreamIdleTimeout
	// StreamMidFailure: a stream failed after delivering an item. It marks the phase and
	// says nothing itself: the FAILURE recorded with it is what counts for health (unless
	// the key sets stream.cutsCountForHealth=false, or the subscriber overflowed).
	StreamMidFailure
	// StreamResumed: a stream cut after an item was re-opened from its last item; counted,
	// once per resume.
	StreamResumed

	// Hedging (command/stage_hedge.go).

	// Hedge is an attempt started while an earlier one of the same try has not answered:
	// each one a completion of its own, so its rolling count is the number of hedges.
	Hedge

	// Graded throttling (command/stage_throttle.go).

	// Throttled: the key's adaptive throttle refused the execution locally (internal/
	// throttle); the fallback answers, as for a rejection.
	Throttled

	// NumEventTypes is the number of command event types.
	NumEventTypes = int(Throttled) + 1
)

// Health is what an event says about the health of the dependency behind its command: the
// circuit breaker's health counts and its verdict on a trial are read from it.
type Health uint8

const (
	// Neutral events say nothing about the dependency and are not counted: the command
	// never reached it (SHORT_CIRCUITED), the caller was at fault (BAD_REQUEST) or left
	// (CANCELLED), or the event follows the one that counted (fallbacks, cache hits).
	Neutral Health = iota
	// Healthy events count as a request that succeeded: SUCCESS.
	Healthy
	// Unhealthy events count as a request and an error: FAILURE, TIMEOUT (and a stream's
	// ESTABLISH_TIMEOUT) and the isolation's rejections (a dependency too slow to give its
	// permits back).
	Unhealthy
)

// eventInfo is what an event type means. eventInfos is the one table every reader takes
// that meaning from (health counts, EXCEPTION_THROWN, the thread-pool events, the
// dashboard stream, the exporters), so a new event type is one line here and cannot fall
// into a reader's default.
type eventInfo struct {
	name      string // the Hystrix name
	terminal  bool   // ends an execution
	exception bool   // the caller sees an error: counts as EXCEPTION_THROWN
	counted   bool   // may happen more than once per execution (carries a count)
	health    Health
	pool      ThreadPoolEventType // the thread-pool event it makes, with inPool
	inPool    bool
	stream    string // the Hystrix stream's rollingCount<stream> field; "" when not shown
}

var eventInfos = [NumEventTypes]eventInfo{
	Emit:               {name: "EMIT", counted: true, stream: "Emit"},
	Success:            {name: "SUCCESS", terminal: true, health: Healthy, pool: Executed, inPool: true, stream: "Success"},
	Failure:            {name: "FAILURE", health: Unhealthy, pool: Executed, inPool: true, stream: "Failure"},
	Timeout:            {name: "TIMEOUT", health: Unhealthy, pool: Executed, inPool: true, stream: "Timeout"},
	BadRequest:         {name: "BAD_REQUEST", terminal: true, exception: true, pool: Executed, inPool: true, stream: "BadRequests"},
	ShortCircuited:     {name: "SHORT_CIRCUITED", stream: "ShortCircuited"},
	ThreadPoolRejected: {name: "THREAD_POOL_REJECTED", health: Unhealthy, pool: Rejected, inPool: true, stream: "ThreadPoolRejected"},
	SemaphoreRejected:  {name: "SEMAPHORE_REJECTED", health: Unhealthy, stream: "SemaphoreRejected"},
	FallbackEmit:       {name: "FALLBACK_EMIT", counted: true, stream: "FallbackEmit"},
	FallbackSuccess:    {name: "FALLBACK_SUCCESS", terminal: true, stream: "FallbackSuccess"},
	FallbackFailure:    {name: "FALLBACK_FAILURE", terminal: true, exception: true, stream: "FallbackFailure"},
	FallbackRejection:  {name: "FALLBACK_REJECTION", terminal: true, exception: true, stream: "FallbackRejection"},
	FallbackDisabled:   {name: "FALLBACK_DISABLED", terminal: true, exception: true},
	FallbackMissing:    {name: "FALLBACK_MISSING", terminal: true, exception: true, stream: "FallbackMissing"},
	ExceptionThrown:    {name: "EXCEPTION_THROWN", stream: "ExceptionsThrown"},
	ResponseFromCache:  {name: "RESPONSE_FROM_CACHE", terminal: true, stream: "ResponsesFromCache"},
	Cancelled:          {name: "CANCELLED", terminal: true},
	Collapsed:          {name: "COLLAPSED", counted: true, stream: "CollapsedRequests"},
	CommandMaxActive:   {name: "COMMAND_MAX_ACTIVE"},
	// The rate limiter and fault injection stages: both neutral. A limiter refusing says
	// nothing about the dependency (it was never called); an injected fault is counted as
	// the outcome it imitates, recorded with it, and the marker adds nothing.
	RateLimited:   {name: "RATE_LIMITED", stream: "RateLimited"},
	FaultInjected: {name: "FAULT_INJECTED", stream: "FaultInjected"},
	// Retries and their budget: neutral, each attempt counts for health on its own.
	Retry:           {name: "RETRY", stream: "Retry"},
	BudgetExhausted: {name: "BUDGET_EXHAUSTED", stream: "BudgetExhausted"},
	// ADAPTIVE isolation: neutral, unlike SEMAPHORE_REJECTED. The limit sheds load by design
	// (half of it at twice the capacity) and already reacts to the dependency's latency
	// and failures; counted as errors, its refusals would open the breaker and turn
	// partial shedding into a total outage. A dependency that fails or times out still
	// opens it through the FAILUREs and TIMEOUTs of the calls the limit admits.
	AdaptiveRejected: {name: "ADAPTIVE_REJECTED", stream: "AdaptiveRejected"},

	StreamEstablishTimeout: {name: "ESTABLISH_TIMEOUT", health: Unhealthy, stream: "EstablishTimeout"},
	StreamIdleTimeout:      {name: "IDLE_TIMEOUT", stream: "IdleTimeout"},
	StreamMidFailure:       {name: "MID_STREAM_FAILURE", stream: "MidStreamFailure"},
	StreamResumed:          {name: "STREAM_RESUMED", counted: true, stream: "StreamResumed"},
	// Hedges: neutral, each attempt counts for health on its own.
	Hedge: {name: "HEDGE", stream: "Hedge"},
	// Throttling: neutral, like a rate limit. The dependency was not called, and the share
	// refused follows the share it refuses itself: counted against health, the refusals
	// would open the breaker and turn partial shedding into a total outage.
	Throttled: {name: "THROTTLED", stream: "Throttled"},
}

// Masks of the event types with an attribute, made from eventInfos.
var (
	terminalMask  = eventMask(func(i eventInfo) bool { return i.terminal })
	exceptionMask = eventMask(func(i eventInfo) bool { return i.exception })
	countedMask   = eventMask(func(i eventInfo) bool { return i.counted })
	healthyMask   = eventMask(func(i eventInfo) bool { return i.health == Healthy })
	unhealthyMask = eventMask(func(i eventInfo) bool { return i.health == Unhealthy })
	poolMasks     = [NumThreadPoolEventTypes]uint32{
		Executed: eventMask(func(i eventInfo) bool { return i.inPool && i.pool == Executed }),
		Rejected: eventMask(func(i eventInfo) bool { return i.inPool && i.pool == Rejected }),
	}
)

func eventMask(has func(eventInfo) bool) uint32 {
	var m uint32
	for e, i := range eventInfos {
		if has(i) {
			m |= 1 << e
		}
	}
	return m
}

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
		return eventInfos[e].name
	}
	return "UNKNOWN"
}

// info returns e's attributes (the zero ones for an unknown type).
func (e EventType) info() eventInfo {
	if int(e) < NumEventTypes {
		return eventInfos[e]
	}
	return eventInfo{}
}

// IsTerminal reports whether e ends an execution (SUCCESS, BAD_REQUEST, the fallback
// outcomes, RESPONSE_FROM_CACHE, CANCELLED).
func (e EventType) IsTerminal() bool { return e.info().terminal }

// IsExceptionProducing reports whether e makes the caller see an error, so that it counts
// as EXCEPTION_THROWN: BAD_REQUEST, FALLBACK_FAILURE, FALLBACK_DISABLED, FALLBACK_MISSING,
// FALLBACK_REJECTION.
func (e EventType) IsExceptionProducing() bool { return e.info().exception }

// Health returns what e says about the dependency's health (see Health).
func (e EventType) Health() Health { return e.info().health }

// StreamName returns the name of e's rolling count on the Hystrix dashboard stream, the
// field rollingCount<StreamName> ("Success", "BadRequests", ...), or "" for the events the
// stream does not show.
func (e EventType) StreamName() string { return e.info().stream }

// isCounted reports whether an execution can record e more than once (EMIT, FALLBACK_EMIT,
// COLLAPSED, STREAM_RESUMED carry a count; every other type is present or absent).
func (e EventType) isCounted() bool { return e.info().counted }

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
