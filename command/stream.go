package command

import (
	"context"
	"errors"
	"maps"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
	"github.com/rxhystrix/rxhystrix/observable"
)

// errNilObservable is the run error of a construct or fallback that returned nil.
var errNilObservable = errors.New("command: construct or fallback returned a nil observable")

// Stream is a command whose run produces many values (Hystrix's
// HystrixObservableCommand): construct returns an rxgo.Observable, and so does the
// optional fallback. Each value adds EMIT (FALLBACK_EMIT from the fallback); completion
// adds SUCCESS (FALLBACK_SUCCESS). The default isolation is SEMAPHORE, and a stream
// always runs on the subscriber's producer goroutine behind the execution semaphore
// (the goroutine pool is not used). The timeout covers the whole stream. Single use,
// like Command; WithCacheKey caches it in the request like a Command.
type Stream struct {
	exec
	construct func(ctx context.Context) rxgo.Observable
	fallback  func(ctx context.Context, err error) rxgo.Observable
	rec       *streamFlight // records the values for the request cache
}

// NewStream returns a streaming command; construct gets the same context a Command's
// run gets (cancelled on timeout and when the subscriber leaves).
func NewStream(s Setter, construct func(ctx context.Context) rxgo.Observable) *Stream {
	rt := s.normalize()
	if _, set := s.Properties["execution.isolation.strategy"]; !set && rt.lookup(s.CommandKey) == nil {
		p := maps.Clone(s.Properties)
		if p == nil {
			p = config.Overrides{}
		}
		p["execution.isolation.strategy"] = "SEMAPHORE"
		s.Properties = p
	}
	st := &Stream{construct: construct}
	st.init(rt.state(&s))
	return st
}

// WithFallback sets the fallback stream (Hystrix's resumeWithFallback).
func (s *Stream) WithFallback(f func(ctx context.Context, err error) rxgo.Observable) *Stream {
	s.fallback = f
	return s
}

// WithCacheKey sets the request-cache key (see Command.WithCacheKey): duplicates in one
// request context replay every value and the terminal of the first execution.
func (s *Stream) WithCacheKey(key string) *Stream {
	s.rareFields().cacheKey = key
	return s
}

// ToObservable returns a cold observable: subscribing executes the stream command and
// forwards its values, then its error if it failed. Ending the subscription's context
// cancels the execution (CANCELLED).
func (s *Stream) ToObservable() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{s.produce})
}

// Observe starts the stream command at once and returns a hot observable replaying all
// its values and its terminal to every subscriber.
func (s *Stream) Observe(ctx context.Context) rxgo.Observable {
	obs := observable.Cache(s.ToObservable())
	observable.ToFuture[any](ctx, obs) // subscribes now: the execution starts
	return obs
}

// produce is the whole stream execution on the subscription's producer goroutine.
func (s *Stream) produce(ctx context.Context, next chan<- rxgo.Item) {
	x := &s.exec
	err := x.begin(ctx)
	if err == nil {
		var rc *cache.RequestContext
		if rc, err = x.requestCache(ctx); err == nil {
			if rc != nil {
				err = s.cached(ctx, next, rc)
			} else {
				x.open(ctx, nil)
				err = s.chain(next)
			}
		}
	}
	if err != nil {
		rxgo.Error(err).SendContext(ctx, next)
	}
}

// send forwards one value to the subscriber, recording it for the request cache.
func (s *Stream) send(it rxgo.Item, next chan<- rxgo.Item) bool {
	if s.rec != nil {
		s.rec.items = append(s.rec.items, it)
	}
	return it.SendContext(s.parent, next)
}

// chain runs the stream's execution chain; a non-nil error is the terminal error item.
func (s *Stream) chain(next chan<- rxgo.Item) error {
	x := &s.exec
	if h := x.hook; h != nil {
		if err := x.startHook(h); err != nil {
			return x.failFast(err)
		}
	}
	var admitted bool
	if x.ticket, admitted = x.ks.breaker.Attempt(); !admitted {
		x.addEvent(metrics.ShortCircuited)
		x.failedErr = ErrShortCircuited
		return s.fallbackOr(next, ShortCircuit, ErrShortCircuited)
	}
	if !x.ks.execSem.TryAcquire() {
		x.addEvent(metrics.SemaphoreRejected)
		x.failedErr = ErrSemaphoreRejected
		return s.fallbackOr(next, RejectedSemaphoreExecution, ErrSemaphoreRejected)
	}
	x.semHeld = true
	x.pw = &poolWait{wake: make(chan struct{})}
	x.prepareRun(false)
	x.markStarted()
	runErr := s.run(next)
	x.execLatency = x.now() - x.start
	switch x.race.Load() {
	case raceTimedOut:
		x.addEvent(metrics.Timeout)
		x.failedErr = ErrTimeout
		x.verdict = breaker.Failure
		return s.fallbackOr(next, Timeout, ErrTimeout)
	case raceCancelled:
		x.unsubscribed()
		return nil
	}
	if runErr == nil {
		x.addEvent(metrics.Success)
		x.verdict = breaker.Success
		x.succeed()
		return nil
	}
	class, callerErr := classify(x.ks.classify, runErr)
	switch class {
	case ClassSuccess:
		x.addEvent(metrics.Success)
		x.verdict = breaker.Success
		x.execErr = callerErr
		x.succeed()
		return callerErr
	case ClassBadRequest:
		x.addEvent(metrics.BadRequest)
		x.failedErr = runErr
		x.verdict = breaker.BadRequest
		return x.fail(callerErr)
	}
	x.addEvent(metrics.Failure)
	x.failedErr = runErr
	x.verdict = breaker.Failure
	return s.fallbackOr(next, CommandException, runErr)
}

// run forwards construct's values until it terminates, the timeout fires or the
// subscriber leaves; it returns the run's error and leaves the race decided.
func (s *Stream) run(next chan<- rxgo.Item) error {
	x := &s.exec
	h := x.hook
	if h != nil {
		if err := hookErr(func() error { return h.OnExecutionStart(&x.rc, x.ks.info) }); err != nil {
			return s.ranTo(err)
		}
	}
	src, err := callConstruct(func() rxgo.Observable { return s.construct(&x.rc) })
	if err != nil {
		return s.ranTo(err)
	}
	sub, cancel := context.WithCancel(&x.rc)
	defer cancel()
	items := src.Observe(rxgo.WithContext(sub))
	for {
		select {
		case it, ok := <-items:
			switch {
			case !ok:
				return s.ranTo(nil)
			case it.Error():
				return s.ranTo(it.E)
			}
			if x.race.Load() != raceRunning {
				return nil
			}
			x.emits.Add(1)
			x.addEvent(metrics.Emit)
			if h != nil {
				safeHook(func() {
					h.OnExecutionEmit(&x.rc, x.ks.info, it.V)
					h.OnEmit(x.parent, x.ks.info, it.V)
				})
			}
			if !s.send(it, next) {
				x.race.CompareAndSwap(raceRunning, raceCancelled)
				return nil
			}
		case <-x.pw.wake:
			return nil
		case <-x.parent.Done():
			x.race.CompareAndSwap(raceRunning, raceCancelled)
			return nil
		}
	}
}

// ranTo ends the run with err (nil: completed) if it still runs, calling the execution hooks.
func (s *Stream) ranTo(err error) error {
	x := &s.exec
	if x.cancelled() {
		// The subscriber left; its cancellation may have ended construct's observable.
		x.race.CompareAndSwap(raceRunning, raceCancelled)
		return nil
	}
	if !x.race.CompareAndSwap(raceRunning, raceCompleted) {
		return nil
	}
	if h := x.hook; h != nil {
		if err == nil {
			safeHook(func() { h.OnExecutionSuccess(&x.rc, x.ks.info) })
		} else {
			safeHook(func() { h.OnExecutionError(&x.rc, x.ks.info, err) })
		}
	}
	return err
}

// fallbackOr forwards the fallback stream for a failure of type ft caused by cause.
func (s *Stream) fallbackOr(next chan<- rxgo.Item, ft FailureType, cause error) error {
	x := &s.exec
	if err := x.fallbackGate(ft, cause, s.fallback != nil); err != nil {
		return err
	}
	h := x.hook
	if h != nil {
		safeHook(func() { h.OnFallbackStart(x.parent, x.ks.info) })
	}
	err := s.runFallback(next, cause)
	x.ks.fallbackSem.Release()
	if x.cancelled() {
		x.unsubscribed()
		return nil
	}
	if err != nil {
		x.addEvent(metrics.FallbackFailure)
		if h != nil {
			safeHook(func() { h.OnFallbackError(x.parent, x.ks.info, err) })
		}
		return x.fail(&Error{Type: ft, CommandKey: x.ks.info.CommandKey, Cause: cause, FallbackErr: err})
	}
	x.addEvent(metrics.FallbackSuccess)
	if h != nil {
		safeHook(func() { h.OnFallbackSuccess(x.parent, x.ks.info) })
	}
	x.succeed()
	return nil
}

// runFallback forwards the fallback's values; it returns the fallback's error.
func (s *Stream) runFallback(next chan<- rxgo.Item, cause error) error {
	x := &s.exec
	src, err := callConstruct(func() rxgo.Observable { return s.fallback(x.parent, cause) })
	if err != nil {
		return err
	}
	sub, cancel := context.WithCancel(x.parent)
	defer cancel()
	h := x.hook
	for it := range src.Observe(rxgo.WithContext(sub)) {
		if it.Error() {
			return it.E
		}
		x.fbEmits.Add(1)
		x.addEvent(metrics.FallbackEmit)
		if h != nil {
			safeHook(func() {
				h.OnFallbackEmit(x.parent, x.ks.info, it.V)
				h.OnEmit(x.parent, x.ks.info, it.V)
			})
		}
		if !s.send(it, next) {
			return nil
		}
	}
	return nil
}

// callConstruct calls a user function returning an observable; a panic or a nil
// observable is an error.
func callConstruct(f func() rxgo.Observable) (obs rxgo.Observable, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	obs = f()
	if obs == nil {
		return nil, errNilObservable
	}
	return obs, nil
}
