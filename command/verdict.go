package command

// verdict is what happened to an execution, as the stages pass it outward. The primary
// verdicts come from the stages that decide (breakerGate, semaphore, timeout, threadPool,
// run); the fallback stage turns the failures among them into one of the final verdicts
// (succeeded, fellBack, errored, cancelled).
type verdict uint8

const (
	pending        verdict = iota // enter only: go on to the next stage inward
	suspended                     // enter only: the stage will resume the chain later
	succeeded                     // SUCCESS: the caller gets the run's value
	failed                        // FAILURE: run returned an error that counts against health
	badRequest                    // BAD_REQUEST: no fallback, the error goes to the caller as is
	shortCircuited                // SHORT_CIRCUITED: the breaker refused
	semRejected                   // SEMAPHORE_REJECTED: the execution semaphore was full
	poolRejected                  // THREAD_POOL_REJECTED: the pool refused the run
	timedOut                      // TIMEOUT: the timer won the race against the run
	cancelled                     // the caller went away before the outcome
	aborted                       // the goroutine unwound through the chain (runtime.Goexit)
	fellBack                      // the fallback answered: the caller gets its value
	errored                       // the caller gets x.err
)

// fallbackType returns the failure type of a verdict the fallback stage recovers, and
// false for the others.
func (v verdict) fallbackType() (FailureType, bool) {
	switch v {
	case failed:
		return CommandException, true
	case shortCircuited:
		return ShortCircuit, true
	case semRejected:
		return RejectedSemaphoreExecution, true
	case poolRejected:
		return RejectedThreadExecution, true
	case timedOut:
		return Timeout, true
	}
	return 0, false
}

// gaveValue reports whether the caller gets a value (from the run or the fallback).
func (v verdict) gaveValue() bool { return v == succeeded || v == fellBack }
