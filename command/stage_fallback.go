package command

import "github.com/rxhystrix/rxhystrix/metrics"

// fallback is Hystrix's onErrorResumeNext into the fallback: on the way out it turns a
// SHORT_CIRCUITED, SEMAPHORE_REJECTED, THREAD_POOL_REJECTED, TIMEOUT or FAILURE verdict
// into the fallback's outcome, behind the fallback semaphore. The failure event is already
// recorded when the fallback runs, so the fallback can ask what happened. A bad request
// becomes the caller's error as is; success, cancellation and an aborted goroutine pass.
type fallback struct{}

func (fallback) enter(*execution) verdict { return pending }

func (fallback) exit(x *execution, v verdict) verdict {
	ft, ok := v.fallbackType()
	if !ok {
		if v == badRequest {
			return errored // run set x.err to the error the caller gets
		}
		return v
	}
	return x.fallBack(ft)
}

// fallBack runs the fallback for a failure of type ft, as Hystrix's
// getFallbackOrThrowException: disabled, behind its semaphore, missing, or run.
func (x *execution) fallBack(ft FailureType) verdict {
	key, cause := x.ks.info.CommandKey, x.failedErr
	if !x.ks.props.FallbackEnabled.Get() {
		x.err = &Error{Type: ft, CommandKey: key, Cause: cause, FallbackErr: ErrFallbackDisabled}
		return errored
	}
	if !x.body.hasFallback() {
		x.addEvent(metrics.FallbackMissing)
		x.err = &Error{Type: ft, CommandKey: key, Cause: cause, FallbackErr: ErrFallbackMissing}
		return errored
	}
	if !x.ks.fallbackSem.TryAcquire() {
		x.addEvent(metrics.FallbackRejection)
		x.err = &Error{Type: RejectedSemaphoreFallback, CommandKey: key, Cause: cause, FallbackErr: ErrFallbackRejected}
		return errored
	}
	defer x.ks.fallbackSem.Release()
	h := x.hook
	if h != nil {
		x.ks.rt.safeHook(func() { h.OnFallbackStart(x.parent, x.ks.info) })
	}
	err := x.body.callFallback(x, cause)
	switch {
	case err == errUnsubscribed:
		return cancelled
	case err != nil:
		x.addEvent(metrics.FallbackFailure)
		if h != nil {
			x.ks.rt.safeHook(func() { h.OnFallbackError(x.parent, x.ks.info, err) })
		}
		x.err = &Error{Type: ft, CommandKey: key, Cause: cause, FallbackErr: err}
		return errored
	}
	x.addEvent(metrics.FallbackSuccess)
	if h != nil {
		x.ks.rt.safeHook(func() { h.OnFallbackSuccess(x.parent, x.ks.info) })
	}
	return fellBack
}
