package command

import (
	"context"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
	"github.com/rxhystrix/rxhystrix/observable"
)

// Command is one execution of a call to a dependency (Hystrix's HystrixCommand): run
// produces one value or an error, and the optional fallback recovers from failures,
// timeouts, rejections and short-circuits. A Command is single use: create a new one
// per call (creation costs one allocation and one lock-free lookup of the key's state).
//
// Execute, Queue, Observe and ToObservable are front doors to the same execution chain;
// the accessors (ExecutionEvents, IsResponseTimedOut, ...) describe the execution.
type Command[T any] struct {
	exec
	run      func(ctx context.Context) (T, error)
	fallback func(ctx context.Context, err error) (T, error)

	// Written by the goroutine that won the race against the timeout.
	value T
}

// New returns a command that calls run with the settings of s. run gets a context that
// carries the caller's values and is cancelled when the caller's context is, and on
// timeout when execution.isolation.thread.interruptOnTimeout is set.
func New[T any](s Setter, run func(ctx context.Context) (T, error)) *Command[T] {
	rt := s.normalize()
	c := &Command[T]{run: run}
	c.init(rt.state(&s))
	return c
}

// WithFallback sets the fallback, called with the error that caused it (the run's error,
// ErrTimeout, ErrShortCircuited, ErrSemaphoreRejected or the pool's rejection). Call it
// before the execution.
func (c *Command[T]) WithFallback(f func(ctx context.Context, err error) (T, error)) *Command[T] {
	c.fallback = f
	return c
}

// WithCacheKey sets the request-cache key: with requestCache.enabled, commands of the
// same key and cache key in one request context share one execution. Call it before
// the execution.
func (c *Command[T]) WithCacheKey(key string) *Command[T] {
	c.rareFields().cacheKey = key
	return c
}

// Execute runs the command and waits for its value or error (Hystrix's execute()).
// With SEMAPHORE isolation everything runs on the calling goroutine.
func (c *Command[T]) Execute(ctx context.Context) (T, error) { return c.execute(ctx, nil) }

// ToObservable returns a cold observable: each subscription executes the command (so
// only the first succeeds; a command is single use) and emits its value or its error.
// Unsubscribing (ending the subscription's context) cancels the execution.
func (c *Command[T]) ToObservable() rxgo.Observable {
	return observable.Defer(func(ctx context.Context) (T, error) { return c.execute(ctx, nil) })
}

// Observe starts the command at once and returns a hot observable that replays its
// outcome to every subscriber, early or late. The execution is cancelled when ctx ends
// and no subscriber is left.
func (c *Command[T]) Observe(ctx context.Context) rxgo.Observable {
	obs := observable.Cache(c.ToObservable())
	observable.ToFuture[T](ctx, obs) // subscribes now: the execution starts
	return obs
}

// Queue starts the command and returns the future of its outcome (Hystrix's queue()).
// Future.Cancel unsubscribes: the command ends CANCELLED, and the run's context is
// cancelled only when execution.isolation.thread.interruptOnFutureCancel is set (else the
// run goes on unobserved, also ignoring ctx's cancellation).
func (c *Command[T]) Queue(ctx context.Context) *observable.Future[T] {
	return observable.ToFuture[T](ctx, observable.Defer(func(sub context.Context) (T, error) {
		if c.ks.props == nil || c.ks.props.InterruptOnFutureCancel.Get() {
			return c.execute(sub, nil)
		}
		return c.execute(context.WithoutCancel(sub), sub.Done())
	}))
}

// execute is the one implementation behind every front door.
func (c *Command[T]) execute(ctx context.Context, stop <-chan struct{}) (T, error) {
	var zero T
	if err := c.begin(ctx); err != nil {
		return zero, err
	}
	rc, err := c.requestCache(ctx)
	if err != nil {
		return zero, err
	}
	if rc != nil {
		return c.cached(ctx, stop, rc)
	}
	return c.chain(ctx, stop)
}

// chain runs REFERENCE §1 steps 4-10: onStart, breaker, isolation, timeout,
// classification, fallback, cleanup.
func (c *Command[T]) chain(ctx context.Context, stop <-chan struct{}) (T, error) {
	x := &c.exec
	x.open(ctx, stop)
	if h := x.hook; h != nil {
		if err := x.startHook(h); err != nil {
			var zero T
			return zero, x.failFast(err)
		}
	}
	var admitted bool
	if x.ticket, admitted = x.ks.breaker.Attempt(); !admitted {
		x.addEvent(metrics.ShortCircuited)
		x.failedErr = ErrShortCircuited
		return c.fallbackOr(ShortCircuit, ErrShortCircuited)
	}
	if x.isolation() == config.Thread {
		return c.inPool()
	}
	if !x.ks.execSem.TryAcquire() {
		x.addEvent(metrics.SemaphoreRejected)
		x.failedErr = ErrSemaphoreRejected
		return c.fallbackOr(RejectedSemaphoreExecution, ErrSemaphoreRejected)
	}
	x.semHeld = true
	return c.settle(c.inline())
}

// inline runs the user function on the caller (SEMAPHORE isolation); it returns the
// time run returned.
func (c *Command[T]) inline() time.Duration {
	x := &c.exec
	x.prepareRun(true)
	x.markStarted()
	v, err := c.callRun()
	end := x.now()
	if x.timedOutAt(end) {
		x.race.CompareAndSwap(raceRunning, raceTimedOut)
	} else if x.cancelled() {
		x.race.CompareAndSwap(raceRunning, raceCancelled)
	}
	if x.race.CompareAndSwap(raceRunning, raceCompleting) {
		x.execLatency = end - x.start
		c.completed(v, err)
		x.race.Store(raceCompleted)
	}
	return end
}

// callRun calls the execution-start hook and run; a failing hook or a panic is a run error.
func (c *Command[T]) callRun() (v T, err error) {
	x := &c.exec
	if h := x.hook; h != nil {
		if err := hookErr(func() error { return h.OnExecutionStart(&x.rc, x.ks.info) }); err != nil {
			return v, err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	return c.run(&x.rc)
}

// completed records the run's outcome and calls the execution hooks; only the goroutine
// that won the race against the timeout calls it.
func (c *Command[T]) completed(v T, err error) {
	x := &c.exec
	c.value, x.failedErr = v, err
	if err != nil {
		x.class, x.execErr = classify(x.ks.classify, err)
	}
	h := x.hook
	if h == nil {
		return
	}
	switch {
	case err == nil:
		safeHook(func() {
			h.OnExecutionEmit(&x.rc, x.ks.info, v)
			h.OnEmit(x.parent, x.ks.info, v)
		})
		safeHook(func() { h.OnExecutionSuccess(&x.rc, x.ks.info) })
	case x.class == ClassSuccess:
		safeHook(func() { h.OnExecutionSuccess(&x.rc, x.ks.info) })
	default:
		safeHook(func() { h.OnExecutionError(&x.rc, x.ks.info, err) })
	}
}

// settle turns the decided race into the command's outcome; end is when run returned
// (never: unknown).
func (c *Command[T]) settle(end time.Duration) (T, error) {
	x := &c.exec
	var zero T
	switch x.race.Load() {
	case raceTimedOut:
		x.addEvent(metrics.Timeout)
		x.failedErr = ErrTimeout
		x.verdict = breaker.Failure
		return c.fallbackOr(Timeout, ErrTimeout)
	case raceCancelled:
		return zero, x.unsubscribed()
	}
	if x.failedErr == nil || x.class == ClassSuccess {
		x.failedErr = nil
		x.addEvent(metrics.Success)
		x.verdict = breaker.Success
		x.succeedAt(end)
		return c.value, x.execErr
	}
	if x.class == ClassBadRequest {
		x.addEvent(metrics.BadRequest)
		x.verdict = breaker.BadRequest
		return zero, x.fail(x.execErr)
	}
	x.addEvent(metrics.Failure)
	x.verdict = breaker.Failure
	return c.fallbackOr(CommandException, x.failedErr)
}

// fallbackOr runs the fallback for a failure of type ft caused by cause (REFERENCE §1.9).
func (c *Command[T]) fallbackOr(ft FailureType, cause error) (T, error) {
	x := &c.exec
	var zero T
	if err := x.fallbackGate(ft, cause, c.fallback != nil); err != nil {
		return zero, err
	}
	h := x.hook
	if h != nil {
		safeHook(func() { h.OnFallbackStart(x.parent, x.ks.info) })
	}
	v, err := c.callFallback(cause)
	x.ks.fallbackSem.Release()
	if err != nil {
		x.addEvent(metrics.FallbackFailure)
		if h != nil {
			safeHook(func() { h.OnFallbackError(x.parent, x.ks.info, err) })
		}
		return zero, x.fail(&Error{Type: ft, CommandKey: x.ks.info.CommandKey, Cause: cause, FallbackErr: err})
	}
	x.addEvent(metrics.FallbackSuccess)
	if h != nil {
		safeHook(func() {
			h.OnFallbackEmit(x.parent, x.ks.info, v)
			h.OnEmit(x.parent, x.ks.info, v)
		})
		safeHook(func() { h.OnFallbackSuccess(x.parent, x.ks.info) })
	}
	x.succeed()
	return v, nil
}

// callFallback calls the fallback with the caller's context; a panic is a fallback error.
func (c *Command[T]) callFallback(cause error) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	return c.fallback(c.parent, cause)
}
