package command

import "github.com/rxhystrix/rxhystrix/metrics"

// breakerGate asks the key's circuit breaker before anything is isolated, and on the way
// out reports the primary verdict to it: the one place a verdict reaches the breaker.
type breakerGate struct{}

func (breakerGate) enter(x *execution) verdict {
	if !x.ks.breaker.AttemptExecution() {
		x.addEvent(metrics.ShortCircuited)
		x.failedErr = ErrShortCircuited
		return shortCircuited
	}
	return pending
}

func (breakerGate) exit(x *execution, v verdict) verdict {
	b := x.ks.breaker
	switch v {
	case succeeded:
		b.MarkSuccess()
	case badRequest:
		b.ReleaseTrial()
	case cancelled:
		b.MarkCancelled()
	default:
		b.MarkNonSuccess()
	}
	return v
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
