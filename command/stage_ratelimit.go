package command

import (
	"strconv"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// rateLimit is the rate limiter (rateLimit.* properties): a permit from the limiter of the
// key's group before anything is isolated. It sits inside the breaker's gate, so a short
// circuit spends no permit (permits are for calls that would reach the dependency), and
// outside the semaphore and the timeout, so a call waiting for a permit holds no execution
// permit and its wait is not execution time. A permit further away than
// rateLimit.maxWaitInMilliseconds, or than the execution timeout (a call that waited that
// long would time out anyway), is refused at once: RATE_LIMITED, which the fallback
// recovers like a rejection and which is neutral to health (the dependency was not
// called). A key with rateLimit.enabled=false has no such stage.
type rateLimit struct {
	l       ratelimit.Limiter
	group   string
	maxWait time.Duration // the bound of a wait: maxWait, or the timeout if shorter
	capped  bool          // the timeout is the bound
}

// rateLimitWaiting is a rateLimit that may wait for a permit (maxWait > 0): Queue and
// Observe run its chain on a goroutine of their own.
type rateLimitWaiting struct{ rateLimit }

func (rateLimitWaiting) waits() {}

// rateLimited is the limiter's refusal: RATE_LIMITED.
var rateLimited = refusal{event: metrics.RateLimited, failure: RateLimited}

func (rateLimit) forKey(k shape) (stage, bool) {
	p := k.props
	if !config.RateLimitEnabled.In(p).Get() {
		return nil, false
	}
	group := config.RateLimitGroup.In(p).Get()
	if group == "" {
		group = p.Key()
	}
	rate := ratelimit.Rate{PerSecond: config.RateLimitPermitsPerSecond.In(p).Get(), Burst: config.RateLimitBurst.In(p).Get()}
	l, err := k.rt.limiter(group, rate)
	if err != nil { // fail open: a broken limiter must not stop the key
		k.rt.logger.Error("command: no rate limiter: the key runs unlimited", "key", p.Key(), "group", group, "err", err)
		return nil, false
	}
	s := rateLimit{l: l, group: group, maxWait: config.RateLimitMaxWait.In(p).Get()}
	if t := config.ExecutionTimeout.In(p).Get(); config.ExecutionTimeoutEnabled.In(p).Get() && t < s.maxWait {
		s.maxWait, s.capped = t, true
	}
	if s.maxWait > 0 {
		return rateLimitWaiting{s}, true
	}
	return s, true
}

func (l rateLimit) enter(x *execution, a *attempt) (verdict, bool) {
	wait, ok := l.l.Reserve(x.now(), l.maxWait)
	if ok && wait == 0 {
		return verdict{}, true
	}
	return l.slow(x, a, wait, ok)
}

func (rateLimit) exit(_ *execution, _ *attempt, v verdict) verdict { return v }

// slow refuses the attempt when no permit comes within the bound, or waits for the
// reserved one: the attempt goes on when it comes, and is cancelled (the permit given
// back) if the caller leaves first.
func (l rateLimit) slow(x *execution, a *attempt, wait time.Duration, ok bool) (verdict, bool) {
	if !ok {
		reason := reasonNoPermit
		if l.capped {
			reason = reasonAfterTimeout
		}
		return a.refuse(&rateLimited, &RateLimitError{Group: l.group, RetryAfter: wait, reason: reason}), false
	}
	came := make(chan struct{})
	t := x.ks.rt.clk.AfterFunc(wait, func() { close(came) })
	if x.wait(came) {
		return verdict{}, true
	}
	t.Stop()
	l.l.Cancel(x.now())
	return verdict{kind: cancelled}, false
}

// rateLimitReason says why the rate limiter refused an execution.
type rateLimitReason uint8

const (
	// reasonNoPermit: no permit within rateLimit.maxWaitInMilliseconds.
	reasonNoPermit rateLimitReason = iota + 1
	// reasonAfterTimeout: the next permit comes after the execution timeout.
	reasonAfterTimeout
)

func (r rateLimitReason) String() string {
	switch r {
	case reasonNoPermit:
		return "no permit within maxWait"
	case reasonAfterTimeout:
		return "next permit after the timeout"
	}
	return "rateLimitReason(" + strconv.Itoa(int(r)) + ")"
}

// RateLimitError is the cause of a RATE_LIMITED execution: the limiter's group and when a
// permit would be free (what an HTTP server sends as Retry-After); its message says why
// the execution did not wait for it. The runtime *Error of type RateLimited wraps it.
type RateLimitError struct {
	Group      string
	RetryAfter time.Duration
	reason     rateLimitReason
}

// Error returns "command: rate limited (group G, <reason>, retry after D)", the reason
// "no permit within maxWait" or "next permit after the timeout".
func (e *RateLimitError) Error() string {
	return "command: rate limited (group " + e.Group + ", " + e.reason.String() + ", retry after " + e.RetryAfter.String() + ")"
}

// Is makes errors.Is(err, ErrRateLimited) hold for the cause alone too (a fallback gets it).
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// WithRateLimiters sets how the runtime makes the limiter of a rate limiter group (default:
// a ratelimit.Bucket in memory). f is called once per group and rate; the limiter must be
// comparable (a pointer): a key's chain is keyed by its stages. A limiter that is an
// io.Closer is closed with the runtime.
func WithRateLimiters(f func(group string, r ratelimit.Rate) (ratelimit.Limiter, error)) Option {
	return func(r *Runtime) { r.newLimiter = f }
}

// limiterFactory makes the limiter of a rate limiter group (WithRateLimiters's f).
type limiterFactory = func(group string, r ratelimit.Rate) (ratelimit.Limiter, error)

// limiterKey is a group at one rate: keys naming the same group with the same rate and
// burst share a limiter.
type limiterKey struct {
	group string
	rate  ratelimit.Rate
}

// limiter returns the limiter of group at rate, made on first use.
func (r *Runtime) limiter(group string, rate ratelimit.Rate) (ratelimit.Limiter, error) {
	return sharedOf(r, limiterKey{group, rate}, func() (ratelimit.Limiter, error) {
		if r.newLimiter == nil {
			return ratelimit.NewBucket(rate)
		}
		return r.newLimiter(group, rate)
	})
}
