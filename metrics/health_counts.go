package metrics

// HealthCounts is the rolling health of one command key, as Hystrix's HealthCounts:
// TotalRequests counts the Healthy and Unhealthy events (EventType.Health: SUCCESS,
// FAILURE, TIMEOUT, THREAD_POOL_REJECTED, SEMAPHORE_REJECTED, ESTABLISH_TIMEOUT),
// ErrorCount the Unhealthy ones, ErrorPercentage = ErrorCount*100/TotalRequests (integer
// part; 0 when TotalRequests is 0). SHORT_CIRCUITED, BAD_REQUEST, cache hits and
// fallback events do not count; a fallback outcome counts through the failure before it.
type HealthCounts struct {
	TotalRequests   int64
	ErrorCount      int64
	ErrorPercentage int
}

// NewHealthCounts returns the health counts for the given totals, with the percentage
// computed as Hystrix does.
func NewHealthCounts(total, errors int64) HealthCounts {
	h := HealthCounts{TotalRequests: total, ErrorCount: errors}
	if total > 0 {
		h.ErrorPercentage = int(errors * 100 / total)
	}
	return h
}
