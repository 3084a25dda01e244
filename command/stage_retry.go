package command

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// retry runs the rest of the chain again, with a fresh attempt, while an attempt FAILED
// (or timed out, with retry.onTimeout), up to retry.maxAttempts in all: a wrapper, in
// the layout between the fallback and the breaker's gate (DESIGN.md says why). Before each
// retry it takes an extra attempt from the key's budget (BUDGET_EXHAUSTED: no retry) and
// waits its backoff on the runtime's clock (exponential with full jitter, or the wait the
// dependency asked for: RetryAfter), and stops when the caller leaves meanwhile
// (CANCELLED). Each retry is an attempt of its own (RETRY), counted for health and told
// to the breaker; the command's outcome is the last attempt's, its fallback runs once.
//
// It never retries a BAD_REQUEST, a refusal (a short circuit, a full semaphore or pool),
// a caller that left, a stream that emitted, a run whose context says WithoutRetry or an
// error that says RetryAfter with a negative wait. With retry.timeoutPerAttempt false
// (the default) the attempts and their backoffs share the execution timeout from the
// first start: no retry whose backoff would end past it.
type retry struct{ extra }

func (retry) forKey(k shape) (stage, bool) {
	if config.RetryMaxAttempts.In(k.props).Get() <= 1 {
		return nil, false
	}
	return retry{extraOf(k)}, true
}

func (retry) waits() {}

func (r retry) run(x *execution, a *attempt, next next) verdict {
	b := r.b
	v := next.run(x, a)
	if b != nil {
		start := x.start // the first attempt's (a hedge inside may still run it)
		if !x.timed {    // refused before its clock started
			start = x.now()
		}
		b.Original(start)
		spent(b, v)
	}
	p := x.ks.props
	for n := 1; n < config.RetryMaxAttempts.In(p).Get() && x.retryable(v); n++ {
		wait, ok := backoff(v.cause, config.RetryBackoff.In(p).Get(), config.RetryMaxBackoff.In(p).Get(), n)
		if !ok {
			break
		}
		now := x.now()
		var until time.Duration
		if !config.RetryTimeoutPerAttempt.In(p).Get() && config.ExecutionTimeoutEnabled.In(p).Get() && x.timed {
			if until = x.start + config.ExecutionTimeout.In(p).Get(); now+wait >= until {
				break // no time left for another attempt
			}
		}
		if b != nil && !b.Withdraw(now) {
			x.addEvent(metrics.BudgetExhausted)
			break
		}
		if !x.pause(wait) {
			return verdict{kind: cancelled}
		}
		x.retire(x.lastAttempt()) // a hedge inside reports one of its attempts
		a = x.newAttempt()
		a.timeout = until // the timeout stage makes it what is left
		a.addEvent(metrics.Retry)
		v = next.run(x, a)
		if b != nil {
			spent(b, v)
		}
	}
	return v
}

// retryable reports whether the attempt that gave v may be retried.
func (x *execution) retryable(v verdict) bool {
	switch v.kind {
	case failed:
	case timedOut:
		if !config.RetryOnTimeout.In(x.ks.props).Get() {
			return false
		}
	default:
		return false
	}
	return x.emits.Load() == 0 && x.parent.Value(noRetryKey{}) == nil
}

// spent tells budget b the outcome of an attempt that reached the dependency (a token
// bucket counts them).
func spent(b interface{ Outcome(bool) }, v verdict) {
	if h := v.event().Health(); h != metrics.Neutral && v.refusal == nil {
		b.Outcome(h == metrics.Healthy)
	}
}

// backoff returns the wait before the n-th retry: the one cause asked for (RetryAfter),
// or a random one in (0, min(ceiling, base x 2^(n-1))] (full jitter: retries of many
// callers spread out instead of arriving together). ok is false when cause asked for no
// retry.
func backoff(cause error, base, ceiling time.Duration, n int) (wait time.Duration, ok bool) {
	var ra *retryAfter
	if errors.As(cause, &ra) {
		return ra.wait, ra.wait >= 0
	}
	c := ceiling
	if n-1 < 32 && base < ceiling>>(n-1) {
		c = base << (n - 1)
	}
	if c <= 0 {
		return 0, true
	}
	return 1 + time.Duration(rand.Int64N(int64(c))), true
}

// pause waits d on the runtime's clock, or until the caller leaves (its context ends, or
// its Future is cancelled): it reports whether the wait ended first.
func (x *execution) pause(d time.Duration) bool {
	if d <= 0 {
		return x.parent.Err() == nil
	}
	elapsed := make(chan struct{})
	t := x.ks.rt.clk.AfterFunc(d, func() { close(elapsed) })
	defer t.Stop()
	return x.wait(elapsed)
}

// noRetryKey marks a context whose commands must not be retried (WithoutRetry).
type noRetryKey struct{}

// WithoutRetry returns ctx marked so that a command executed with it (or a context made
// from it) is never retried, whatever its key's retry.maxAttempts: a call that is not
// idempotent (hystrixhttp and hystrixgrpc mark theirs).
func WithoutRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetryKey{}, true)
}

// retryAfter is an error with the wait its dependency asked for before a retry.
type retryAfter struct {
	err  error
	wait time.Duration
}

func (r *retryAfter) Error() string { return r.err.Error() }
func (r *retryAfter) Unwrap() error { return r.err }

// RetryAfter returns err carrying the wait the dependency asked for before it is called
// again (HTTP's Retry-After, gRPC's grpc-retry-pushback-ms): a retry waits that long
// instead of its backoff, and a negative wait means no retry. It is err for everything
// else (errors.Is and errors.As see through it).
func RetryAfter(err error, wait time.Duration) error {
	if err == nil {
		return nil
	}
	return &retryAfter{err: err, wait: wait}
}
