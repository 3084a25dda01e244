package command

import (
	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// breakerGate asks the key's circuit breaker before anything is isolated and keeps the
// ticket it hands out; the primary verdict goes back to the breaker with that ticket, once
// the execution is recorded in metrics (terminal), so that the opt-in re-evaluation on
// failure counts it: the one place a verdict reaches the breaker.
type breakerGate struct{}

func (breakerGate) enter(x *execution) verdict {
	t, ok := x.ks.breaker.Attempt()
	if !ok {
		x.addEvent(metrics.ShortCircuited)
		x.failedErr = ErrShortCircuited
		return shortCircuited
	}
	x.ticket, x.admitted = t, true
	return pending
}

func (breakerGate) exit(x *execution, v verdict) verdict {
	x.primary = v
	return v
}

// outcome is what the breaker is told about the primary verdict of an admitted execution.
func outcome(v verdict) breaker.Outcome {
	switch v {
	case succeeded:
		return breaker.Success
	case badRequest:
		return breaker.BadRequest
	case cancelled:
		return breaker.Cancelled
	}
	return breaker.Failure
}

// semaphore is the execution semaphore of SEMAPHORE isolation: a permit per key, taken
// without waiting and held until the run returns.
type semaphore struct{}

func (semaphore) enter(x *execution) verdict {
	if !x.ks.execSem.TryAcquire() {
		x.addEvent(metrics.SemaphoreRejected)
		x.failedErr = ErrSemaphoreRejected
		return semRejected
	}
	return pending
}

func (semaphore) exit(x *execution, v verdict) verdict {
	x.ks.execSem.Release()
	return v
}
