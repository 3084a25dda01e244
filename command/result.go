package command

import (
	"math/bits"
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// The accessors below describe the execution (Hystrix's getExecutionEvents,
// isResponseTimedOut, ...). Read them after the execution completed; the event-based
// ones may also be read while it runs.

// CommandKey returns the command key.
func (x *execution) CommandKey() string { return x.ks.info.CommandKey }

// GroupKey returns the group key.
func (x *execution) GroupKey() string { return x.ks.info.GroupKey }

// ThreadPoolKey returns the thread-pool key (threadPoolKeyOverride applied).
func (x *execution) ThreadPoolKey() string { return x.ks.info.ThreadPoolKey }

// ExecutionEvents returns the recorded events in Hystrix order, EMIT, FALLBACK_EMIT and
// STREAM_RESUMED repeated as many times as they happened.
func (x *execution) ExecutionEvents() []metrics.EventType {
	var out []metrics.EventType
	for set := x.events.Load(); set != 0; set &= set - 1 {
		e := metrics.EventType(trailingZeros(set))
		for range x.count(e) {
			out = append(out, e)
		}
	}
	return out
}

// eventList returns ExecutionEvents for the event notifier: for the executions whose
// events do not repeat (no EMIT, FALLBACK_EMIT, COLLAPSED or STREAM_RESUMED), a list shared by every
// execution with the same events, so that a notifier costs no allocation per execution.
func (x *execution) eventList() []metrics.EventType {
	set := x.events.Load()
	const repeat = 1<<metrics.Emit | 1<<metrics.FallbackEmit | 1<<metrics.Collapsed | 1<<metrics.StreamResumed
	if set&repeat != 0 {
		return x.ExecutionEvents()
	}
	if l, ok := eventLists.Load(set); ok {
		return l.([]metrics.EventType)
	}
	l, _ := eventLists.LoadOrStore(set, x.ExecutionEvents())
	return l.([]metrics.EventType)
}

// eventLists are the event lists eventList shares, by event set: at most one per set of
// events an execution can end with.
var eventLists sync.Map

// LogEvents implements cache.LogEntry: the events with their counts, for the request log.
func (x *execution) LogEvents() []cache.LogEvent {
	var out []cache.LogEvent
	for set := x.events.Load(); set != 0; set &= set - 1 {
		e := metrics.EventType(trailingZeros(set))
		out = append(out, cache.LogEvent{Name: e.String(), Count: x.count(e)})
	}
	return out
}

// ExecutionTime returns how long run (or construct) took, until the timeout fired, or
// until the caller left while it ran; -1 if it did not run or its outcome is not known
// yet (Hystrix's getExecutionTimeInMilliseconds).
func (x *execution) ExecutionTime() time.Duration {
	a := x.lastAttempt()
	if !a.ran() || a.race.running() {
		return -1
	}
	return a.runLatency()
}

// ended reports whether the terminal event was published (not after an unsubscribe).
func (x *execution) ended() bool { return x.total.Load() != 0 }

// TotalLatency returns the time from the start of the execution to its terminal event
// (0 before the end).
func (x *execution) TotalLatency() time.Duration { return max(time.Duration(x.total.Load()-1), 0) }

// ExecutionLatency returns how long run (or construct) took, until the timeout fired, or
// until the caller left while it ran; 0 if it did not run.
func (x *execution) ExecutionLatency() time.Duration { return x.lastAttempt().runLatency() }

// IsExecutionComplete reports whether the command reached a terminal event; false after
// the caller went away (CANCELLED), as in Hystrix.
func (x *execution) IsExecutionComplete() bool { return x.ended() }

// IsSuccessfulExecution reports whether run succeeded (SUCCESS).
func (x *execution) IsSuccessfulExecution() bool { return x.has(metrics.Success) }

// IsFailedExecution reports whether run failed (FAILURE).
func (x *execution) IsFailedExecution() bool { return x.has(metrics.Failure) }

// FailedExecutionError returns why the primary path failed: the error run failed with,
// or the timeout, rejection or short-circuit error; nil if it did not fail.
func (x *execution) FailedExecutionError() error { return x.failedErr }

// ExecutionError returns the error the command ended with: the error the caller got,
// or, when the fallback recovered a failure, the failure's cause (Hystrix's
// getExecutionException); nil after a success, and nil after the caller went away.
func (x *execution) ExecutionError() error {
	if x.has(metrics.Cancelled) {
		return nil
	}
	if x.err != nil {
		return x.err
	}
	return x.failedErr
}

// IsResponseFromFallback reports whether the caller got the fallback's value.
func (x *execution) IsResponseFromFallback() bool { return x.has(metrics.FallbackSuccess) }

// IsResponseTimedOut reports whether the execution timed out.
func (x *execution) IsResponseTimedOut() bool { return x.has(metrics.Timeout) }

// IsResponseShortCircuited reports whether the circuit breaker refused the execution.
func (x *execution) IsResponseShortCircuited() bool { return x.has(metrics.ShortCircuited) }

// IsResponseRejected reports whether the isolation refused the execution: the semaphore,
// the pool or the adaptive limit.
func (x *execution) IsResponseRejected() bool {
	return x.has(metrics.SemaphoreRejected) || x.has(metrics.ThreadPoolRejected) || x.has(metrics.AdaptiveRejected)
}

// IsResponseAdaptiveRejected reports whether the adaptive limit refused the execution.
func (x *execution) IsResponseAdaptiveRejected() bool { return x.has(metrics.AdaptiveRejected) }

// IsResponseThreadPoolRejected reports whether the pool refused the execution.
func (x *execution) IsResponseThreadPoolRejected() bool { return x.has(metrics.ThreadPoolRejected) }

// IsResponseSemaphoreRejected reports whether the execution semaphore was full.
func (x *execution) IsResponseSemaphoreRejected() bool { return x.has(metrics.SemaphoreRejected) }

// IsResponseFromCache reports whether the response came from the request cache.
func (x *execution) IsResponseFromCache() bool { return x.has(metrics.ResponseFromCache) }

// IsCancelled reports whether the caller went away before the terminal event.
func (x *execution) IsCancelled() bool { return x.has(metrics.Cancelled) }

// IsExecutedInThread reports whether run ran on a pool goroutine (THREAD isolation).
func (x *execution) IsExecutedInThread() bool {
	a := x.lastAttempt()
	return a.thread != nil && a.ran()
}

// IsCircuitBreakerOpen reports whether the command's circuit breaker is open now.
func (x *execution) IsCircuitBreakerOpen() bool { return x.ks.breaker != nil && x.ks.breaker.IsOpen() }

func trailingZeros(x uint32) int { return bits.TrailingZeros32(x) }
