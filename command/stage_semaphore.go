package command

import (
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// semaphore is the execution semaphore of SEMAPHORE isolation: a permit per key, taken
// without waiting and held until the rest of the chain returns. Its permits are the key's
// concurrency in metrics (TryMarkStart): one counter for both.
type semaphore struct{}

// semaphoreFull is the semaphore's refusal: SEMAPHORE_REJECTED.
var semaphoreFull = refusal{event: metrics.SemaphoreRejected, failure: RejectedSemaphoreExecution}

func (semaphore) forKey(k shape) (stage, bool) { return semaphore{}, k.iso == config.Semaphore }

func (semaphore) enter(x *execution, a *attempt) (verdict, bool) {
	if !x.ks.metrics.TryMarkStart(int64(config.ExecutionMaxConcurrentRequests.In(x.ks.props).Get())) {
		return a.refuse(&semaphoreFull, ErrSemaphoreRejected), false
	}
	a.permit = true
	return verdict{}, true
}

func (semaphore) exit(x *execution, _ *attempt, v verdict) verdict {
	x.ks.metrics.MarkEnd()
	return v
}
