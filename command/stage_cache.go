package command

import (
	"fmt"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// requestCache is Hystrix's request cache: the first execution of a (command key, cache
// key) pair in a request context runs the chain and its outcome is shared; the others
// (hits) wait for it and replay its value or error with its events plus
// RESPONSE_FROM_CACHE, calling only onCacheHit. The slot is taken by the front door
// (takeCacheSlot), so that of queued duplicates the first queued runs. A key with
// requestCache.enabled=false has no such stage.
type requestCache struct{}

func (requestCache) forKey(k shape) (stage, bool) {
	return requestCache{}, config.RequestCacheEnabled.In(k.props).Get()
}

func (requestCache) enter(x *execution, _ *attempt) (verdict, bool) {
	if r := x.rare; r != nil && r.flight != nil {
		return x.hit(), false
	}
	return verdict{}, true
}

func (requestCache) exit(x *execution, _ *attempt, v verdict) verdict {
	if r := x.rare; r != nil && r.owner {
		r.final = v
		x.body.settled(x, v) // the hits waiting for this execution replay it now
	}
	return v
}

// hit waits for the original execution a hit replays, and replays it, or ends CANCELLED
// if the caller leaves first.
func (x *execution) hit() verdict {
	r := x.rare
	if h := x.ks.rt.hooks.ExecutionHook(); !hooks.IsNoop(h) {
		x.ks.rt.safeHook(func() { h.OnCacheHit(x.parent, x.ks.info) })
	}
	x.start, x.timed = x.now(), true
	if x.wait(r.flight.body.done()) {
		return x.replay()
	}
	return x.hitCancelled()
}

// takeCacheSlot looks the execution up in the request cache (begin): it becomes the owner
// of a new slot or a hit on the execution that took it first.
func (x *execution) takeCacheSlot(rc *cache.RequestContext) error {
	if x.rare == nil || x.rare.cacheKey == "" || !config.RequestCacheEnabled.In(x.ks.props).Get() {
		return nil
	}
	if rc == nil {
		return x.badRequest(ErrNoRequestContext)
	}
	v, hit := rc.Cache().GetOrStart(x.ks.info.CommandKey, x.rare.cacheKey, func() any { return x })
	if !hit {
		x.rare.owner = true
		return nil
	}
	orig := v.(*execution)
	if !x.body.replays(orig.body) {
		return x.badRequest(fmt.Errorf("command: cache key %q is shared with a command of another result type (%T)",
			x.rare.cacheKey, orig.body))
	}
	x.rare.flight = orig
	return nil
}

// replay copies the original's outcome into the hit: its events plus RESPONSE_FROM_CACHE
// (metrics see a RESPONSE_FROM_CACHE completion only, as in Hystrix: the original
// published its own events), its errors, and its value or items.
func (x *execution) replay() verdict {
	orig := x.rare.flight
	x.events.Store(orig.events.Load() | 1<<metrics.ResponseFromCache)
	x.emits.Store(orig.emits.Load())
	x.fbEmits.Store(orig.fbEmits.Load())
	x.failedErr, x.err = orig.failedErr, orig.err
	v := verdict{kind: orig.rare.final.kind, cause: orig.err}
	if v.kind == cancelled { // the original's caller left: the hit gets the same error
		v.kind = errored
	}
	x.body.replay(x, orig)
	x.notify(metrics.ResponseFromCache)
	x.publishHit(metrics.ResponseFromCache, v.kind)
	return v
}

// hitCancelled ends a hit whose caller left before the original's outcome.
func (x *execution) hitCancelled() verdict {
	x.events.Or(1 << metrics.Cancelled)
	x.err = x.cancelErr()
	x.publishHit(metrics.Cancelled, cancelled)
	return verdict{kind: cancelled, cause: x.err}
}

// publishHit publishes a cache hit's completion with the single event e.
func (x *execution) publishHit(e metrics.EventType, k kind) {
	total := x.now() - x.start
	x.ks.metrics.MarkComplete(metrics.ExecutionResult{}.WithEvent(e).WithTotalLatency(total))
	if k != cancelled {
		x.total.Store(int64(max(total, 0)) + 1)
	}
}
