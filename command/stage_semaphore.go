package command

import (
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// semaphore is the execution semaphore of SEMAPHORE isolation: a permit per key, taken
// without waiting and held until the rest of the chain returns.
type semaphore struct{}

// semaphoreFull is the semaphore's refusal: SEMAPHORE_REJECTED.
var semaphoreFull = refusal{event: metrics.SemaphoreRejected, failure: RejectedSemaphoreExecution}

func (semaphore) forKey(k shape) (stage, bool) { return semaphore{}, k.iso == config.Semaphore }

func (semaphore) run(x *execution, a *attempt, next next) verdict {
	if !x.ks.execSem.TryAcquire() {
		return a.refuse(&semaphoreFull, ErrSemaphoreRejected)
	}
	defer x.ks.execSem.Release()
	return next.run(x, a)
}
