package command

import (
	"math/bits"
	"time"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// The accessors below describe the execution (Hystrix's getExecutionEvents,
// isResponseTimedOut, ...). Read them after the execution completed; the event-based
// ones may also be read while it runs.

// CommandKey returns the command key.
func (x *exec) CommandKey() string { return x.ks.info.CommandKey }

// GroupKey returns the group key.
func (x *exec) GroupKey() string { return x.ks.info.GroupKey }

// ThreadPoolKey returns the thread-pool key (threadPoolKeyOverride applied).
func (x *exec) ThreadPoolKey() string { return x.ks.info.ThreadPoolKey }

// ExecutionEvents returns the recorded events in Hystrix order, EMIT and FALLBACK_EMIT
// repeated as many times as they happened.
func (x *exec) ExecutionEvents() []metrics.EventType {
	var out []metrics.EventType
	for set := x.events.Load(); set != 0; set &= set - 1 {
		e := metrics.EventType(trailingZeros(set))
		for range x.count(e) {
			out = append(out, e)
		}
	}
	return out
}

// LogEvents implements cache.LogEntry: the events with their counts, for the request log.
func (x *exec) LogEvents() []cache.LogEvent {
	var out []cache.LogEvent
	for set := x.events.Load(); set != 0; set &= set - 1 {
		e := metrics.EventType(trailingZeros(set))
		out = append(out, cache.LogEvent{Name: e.String(), Count: x.count(e)})
	}
	return out
}

// ExecutionTime returns the total latency (start to terminal event), -1 before the end.
func (x *exec) ExecutionTime() time.Duration {
	if !x.ended() {
		return -1
	}
	return time.Duration(x.total.Load() - 1)
}

func (x *exec) ended() bool { return x.total.Load() != 0 }

// setTotal records the total latency, which marks the execution ended.
func (x *exec) setTotal(d time.Duration) { x.total.Store(int64(max(d, 0)) + 1) }

// TotalLatency returns the time from the start of the execution to its terminal event
// (0 before the end).
func (x *exec) TotalLatency() time.Duration { return max(time.Duration(x.total.Load()-1), 0) }

// ExecutionLatency returns how long run (or construct) took; 0 if it did not run.
func (x *exec) ExecutionLatency() time.Duration { return x.execLatency }

// IsExecutionComplete reports whether the command reached a terminal event.
func (x *exec) IsExecutionComplete() bool { return x.ended() }

// IsSuccessfulExecution reports whether run succeeded (SUCCESS).
func (x *exec) IsSuccessfulExecution() bool { return x.has(metrics.Success) }

// IsFailedExecution reports whether run failed (FAILURE).
func (x *exec) IsFailedExecution() bool { return x.has(metrics.Failure) }

// FailedExecutionError returns the error run failed with (the timeout or rejection
// error for those outcomes), or nil.
func (x *exec) FailedExecutionError() error { return x.failedErr }

// ExecutionError returns the error the caller got, or nil.
func (x *exec) ExecutionError() error { return x.execErr }

// IsResponseFromFallback reports whether the caller got the fallback's value.
func (x *exec) IsResponseFromFallback() bool { return x.has(metrics.FallbackSuccess) }

// IsResponseTimedOut reports whether the execution timed out.
func (x *exec) IsResponseTimedOut() bool { return x.has(metrics.Timeout) }

// IsResponseShortCircuited reports whether the circuit breaker refused the execution.
func (x *exec) IsResponseShortCircuited() bool { return x.has(metrics.ShortCircuited) }

// IsResponseRejected reports whether the semaphore or the pool refused the execution.
func (x *exec) IsResponseRejected() bool {
	return x.has(metrics.SemaphoreRejected) || x.has(metrics.ThreadPoolRejected)
}

// IsResponseThreadPoolRejected reports whether the pool refused the execution.
func (x *exec) IsResponseThreadPoolRejected() bool { return x.has(metrics.ThreadPoolRejected) }

// IsResponseSemaphoreRejected reports whether the execution semaphore was full.
func (x *exec) IsResponseSemaphoreRejected() bool { return x.has(metrics.SemaphoreRejected) }

// IsResponseFromCache reports whether the response came from the request cache.
func (x *exec) IsResponseFromCache() bool { return x.has(metrics.ResponseFromCache) }

// IsCancelled reports whether the caller went away before the terminal event.
func (x *exec) IsCancelled() bool { return x.has(metrics.Cancelled) }

// IsExecutedInThread reports whether run ran on a pool goroutine (THREAD isolation).
func (x *exec) IsExecutedInThread() bool { return x.inThread }

// IsCircuitBreakerOpen reports whether the command's circuit breaker is open now.
func (x *exec) IsCircuitBreakerOpen() bool { return x.ks.breaker != nil && x.ks.breaker.IsOpen() }

func trailingZeros(x uint32) int { return bits.TrailingZeros32(x) }
