package command

import (
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// fallback is Hystrix's onErrorResumeNext into the fallback: it turns a SHORT_CIRCUITED,
// SEMAPHORE_REJECTED, THREAD_POOL_REJECTED, TIMEOUT or FAILURE verdict of the stages
// inside it into the fallback's outcome, behind the fallback semaphore. The failure event
// is already recorded when the fallback runs, so the fallback can ask what happened. A bad
// request becomes the caller's error as is; success, cancellation and an aborted
// goroutine pass.
type fallback struct{}

func (fallback) enter(*execution, *attempt) (verdict, bool) { return verdict{}, true }

func (fallback) exit(x *execution, _ *attempt, v verdict) verdict {
	ft := v.fallbackType()
	switch {
	case ft != 0:
		x.failedErr = v.cause
		return x.fallBack(ft, v.cause)
	case v.kind == badRequest:
		x.failedErr = v.cause
		return verdict{kind: errored, cause: badRequestErr(v.cause)}
	}
	return v
}

// fallBack runs the fallback for a failure of type ft, as Hystrix's
// getFallbackOrThrowException: disabled, behind its semaphore, missing, or run.
func (x *execution) fallBack(ft FailureType, cause error) verdict {
	key := x.ks.info.CommandKey
	fail := func(ft FailureType, fbErr error) verdict {
		return verdict{kind: errored, cause: &Error{Type: ft, CommandKey: key, Cause: cause, FallbackErr: fbErr}}
	}
	if !config.FallbackEnabled.In(x.ks.props).Get() {
		return fail(ft, ErrFallbackDisabled)
	}
	if !x.body.hasFallback() {
		x.addEvent(metrics.FallbackMissing)
		return fail(ft, ErrFallbackMissing)
	}
	if !x.ks.fallbackSem.TryAcquire() {
		x.addEvent(metrics.FallbackRejection)
		return fail(RejectedSemaphoreFallback, ErrFallbackRejected)
	}
	defer x.ks.fallbackSem.Release()
	h := x.hook
	if h != nil {
		x.ks.rt.safeHook(func() { h.OnFallbackStart(x.parent, x.ks.info) })
	}
	err := x.body.callFallback(x, cause)
	switch {
	case err == errUnsubscribed:
		return verdict{kind: cancelled}
	case err != nil:
		x.addEvent(metrics.FallbackFailure)
		if h != nil {
			x.ks.rt.safeHook(func() { h.OnFallbackError(x.parent, x.ks.info, err) })
		}
		return fail(ft, err)
	}
	x.addEvent(metrics.FallbackSuccess)
	if h != nil {
		x.ks.rt.safeHook(func() { h.OnFallbackSuccess(x.parent, x.ks.info) })
	}
	return verdict{kind: fellBack}
}
