package command

import (
	"context"
	"fmt"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// outcome is what an execution in the request cache leaves for its duplicates: they wait
// for done and replay it.
type outcome struct {
	done      chan struct{}
	err       error
	events    uint32
	emits     int32
	fbEmits   int32
	failedErr error
}

func newOutcome() outcome { return outcome{done: make(chan struct{})} }

// settle records x's outcome (the caller got err) and releases the duplicates.
func (o *outcome) settle(x *exec, err error) {
	o.err = err
	o.events, o.emits, o.fbEmits = x.events.Load(), x.emits.Load(), x.fbEmits.Load()
	o.failedErr = x.failedErr
	close(o.done)
}

// flight is a Command's execution in the request cache.
type flight[T any] struct {
	outcome
	value T
}

// streamFlight is a Stream's execution in the request cache.
type streamFlight struct {
	outcome
	items []rxgo.Item // values forwarded, from the run and the fallback
}

// errCacheType is the error of a cache key shared by commands of different kinds.
func (x *exec) errCacheType(v any) error {
	return &Error{Type: BadRequestException, CommandKey: x.ks.info.CommandKey,
		Cause: fmt.Errorf("command: cache key %q is shared with a command of another result type (%T)", x.rare.cacheKey, v)}
}

// cached executes the command through the request cache: the first command of a (key,
// cache key) pair in the request runs; concurrent and later ones replay its outcome.
func (c *Command[T]) cached(ctx context.Context, stop <-chan struct{}, rc *cache.RequestContext) (T, error) {
	x := &c.exec
	fl := &flight[T]{outcome: newOutcome()}
	v, hit := rc.Cache().GetOrStart(x.ks.info.CommandKey, x.rare.cacheKey, func() any { return fl })
	if !hit {
		val, err := c.chain(ctx, stop)
		fl.value = val
		fl.settle(x, err)
		return val, err
	}
	var zero T
	orig, ok := v.(*flight[T])
	if !ok {
		return zero, x.errCacheType(v)
	}
	if err := x.awaitHit(ctx, stop, &orig.outcome); err != nil {
		return zero, err
	}
	x.replayed(&orig.outcome)
	return orig.value, orig.err
}

// awaitHit starts a cache hit (onCacheHit only) and waits for the original execution;
// it returns the caller's error if the caller leaves first (the hit ends CANCELLED).
func (x *exec) awaitHit(ctx context.Context, stop <-chan struct{}, orig *outcome) error {
	x.setParent(ctx, stop)
	x.start, x.timed = x.now(), true
	if h := x.ks.rt.hooks.ExecutionHook(); !hooks.IsNoop(h) {
		safeHook(func() { h.OnCacheHit(x.parent, x.ks.info) })
	}
	select {
	case <-orig.done:
		return nil
	case <-ctx.Done():
	case <-stop:
	}
	err := x.cancelErr()
	x.events.Or(1 << metrics.Cancelled)
	x.execErr = err
	x.publishHit(metrics.Cancelled)
	return err
}

// replayed copies the original's outcome into the hit: its events plus
// RESPONSE_FROM_CACHE. Metrics see a RESPONSE_FROM_CACHE completion only, as in Hystrix
// (the original published its own events).
func (x *exec) replayed(orig *outcome) {
	x.events.Store(orig.events | 1<<metrics.ResponseFromCache)
	x.emits.Store(orig.emits)
	x.fbEmits.Store(orig.fbEmits)
	x.failedErr, x.execErr = orig.failedErr, orig.err
	x.notify(metrics.ResponseFromCache)
	x.publishHit(metrics.ResponseFromCache)
}

// publishHit publishes a cache hit's completion with the single event e.
func (x *exec) publishHit(e metrics.EventType) {
	total := x.now() - x.start
	x.ks.metrics.MarkComplete(metrics.ExecutionResult{}.WithEvent(e).WithStartTime(x.startTime()).WithTotalLatency(total))
	x.setTotal(total)
}

// cached executes a stream through the request cache; the hits replay every value and
// the terminal error. It returns the terminal error item to send, if any.
func (s *Stream) cached(ctx context.Context, next chan<- rxgo.Item, rc *cache.RequestContext) error {
	x := &s.exec
	fl := &streamFlight{outcome: newOutcome()}
	v, hit := rc.Cache().GetOrStart(x.ks.info.CommandKey, x.rare.cacheKey, func() any { return fl })
	if !hit {
		s.rec = fl
		x.open(ctx, nil)
		err := s.chain(next)
		fl.settle(x, err)
		return err
	}
	orig, ok := v.(*streamFlight)
	if !ok {
		return x.errCacheType(v)
	}
	if err := x.awaitHit(ctx, nil, &orig.outcome); err != nil {
		return nil
	}
	for _, it := range orig.items {
		if !it.SendContext(ctx, next) {
			break
		}
	}
	x.replayed(&orig.outcome)
	return orig.err
}
