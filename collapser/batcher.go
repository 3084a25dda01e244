package collapser

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// core is the batching machinery both collapsers share: it collects requests into the
// open batch of their scope, de-duplicates them, fires the batch on its timer or when it
// is full, and lets callers leave. It starts no goroutine of its own: a batch arms one
// clock timer while it is open and holds nothing once fired, so an idle collapser costs
// only its struct.
type core[A, R any] struct {
	key        string
	scope      Scope
	clk        clock.Clock
	props      *config.CollapserProperties
	metrics    *metrics.CollapserMetrics
	cacheKey   func(A) string                                   // nil: no de-duplication
	run        func(ctx context.Context, reqs []*Request[A, R]) // the variant's batch execution
	cacheNS    string                                           // command key of our request-cache entries
	noResponse error

	mu         sync.Mutex
	global     *batch[A, R]                           // open batch of GlobalScope
	perRequest map[*cache.RequestContext]*batch[A, R] // open batches of RequestScope
}

// batch is one batch: open (collecting) until fired, then run once.
type batch[A, R any] struct {
	rc     *cache.RequestContext // RequestScope: the request context it serves
	reqs   []*Request[A, R]      // in arrival order; never changed once fired
	dedup  map[string]*Request[A, R]
	timer  clock.Timer // armed by the first request unless it filled the batch
	fired  bool
	live   int // fired: requests some caller still waits for
	ctx    context.Context
	cancel context.CancelFunc // cancels the batch command when every caller left
}

func newCore[A, R any](s Setter, cacheKey func(A) string,
	run func(context.Context, []*Request[A, R])) (*core[A, R], error) {
	if s.CollapserKey == "" {
		return nil, fmt.Errorf("collapser: %w", config.ErrEmptyKey)
	}
	rt := s.Runtime
	if rt == nil {
		rt = defaultRuntime{}
	}
	props, err := rt.Config().Collapser(s.CollapserKey, s.Properties)
	if err != nil {
		return nil, fmt.Errorf("collapser %s: %w", s.CollapserKey, err)
	}
	return &core[A, R]{
		key: s.CollapserKey, scope: s.Scope, clk: rt.Clock(), props: props,
		metrics:    rt.Metrics().CollapserFor(s.CollapserKey, props),
		cacheKey:   cacheKey,
		run:        run,
		cacheNS:    "\x00collapser:" + s.CollapserKey,
		noResponse: fmt.Errorf("collapser %s: %w", s.CollapserKey, ErrNoResponse),
		perRequest: map[*cache.RequestContext]*batch[A, R]{},
	}, nil
}

// submit puts arg into the open batch of its scope, or joins the request that already
// carries the same cache key, and returns the request with the caller counted as one of
// its waiters. The caller must then wait (await) for it.
func (c *core[A, R]) submit(ctx context.Context, arg A) (*Request[A, R], error) {
	rc := cache.FromContext(ctx)
	if c.scope == RequestScope && rc == nil {
		return nil, fmt.Errorf("collapser %s: %w", c.key, ErrNoRequestContext)
	}
	if c.cacheKey == nil || !config.CollapserRequestCacheEnabled.In(c.props).Get() {
		return c.add(ctx, rc, arg, "", false), nil
	}
	var key string
	if err := protect(c.key, "CacheKey", func() { key = c.cacheKey(arg) }); err != nil {
		return nil, err
	}
	if rc == nil {
		return c.add(ctx, nil, arg, key, true), nil
	}
	for {
		v, hit := rc.Cache().GetOrStart(c.cacheNS, key, func() any {
			return c.add(ctx, rc, arg, key, true)
		})
		r := v.(*Request[A, R])
		if !hit {
			return r, nil
		}
		if c.join(r) {
			c.metrics.MarkResponseFromCache()
			return r, nil
		}
		// Every caller of the cached request left before it was answered: start afresh.
		rc.Cache().Clear(c.cacheNS, key)
	}
}

// add appends a new request to the open batch, or joins the batch's request with the
// same cache key; it fires the batch when the request made it full.
func (c *core[A, R]) add(ctx context.Context, rc *cache.RequestContext, arg A, key string, cached bool) *Request[A, R] {
	c.mu.Lock()
	b := c.openLocked(ctx, rc)
	if cached {
		if r := b.dedup[key]; r != nil {
			r.waiters++
			c.mu.Unlock()
			c.metrics.MarkResponseFromCache()
			return r
		}
	}
	r := newRequest[A, R](arg)
	r.b, r.waiters, r.cacheKey, r.cached = b, 1, key, cached
	if cached {
		r.rc = rc
		if b.dedup == nil {
			b.dedup = map[string]*Request[A, R]{}
		}
		b.dedup[key] = r
	}
	b.reqs = append(b.reqs, r)
	maxSize := config.CollapserMaxRequestsInBatch.In(c.props).Get()
	full := maxSize > 0 && len(b.reqs) >= maxSize
	switch {
	case full:
		c.detachLocked(b)
	case b.timer == nil:
		b.timer = c.clk.AfterFunc(config.CollapserTimerDelay.In(c.props).Get(), func() { c.onTimer(b) })
	}
	c.mu.Unlock()
	if full {
		stopTimer(b.timer)
		go c.fire(b)
	}
	return r
}

// stopTimer stops t unless it is nil (a batch that was full at its first request).
func stopTimer(t clock.Timer) {
	if t != nil {
		t.Stop()
	}
}

// openLocked returns the open batch of the caller's scope, opening one when there is
// none (add arms its timer).
func (c *core[A, R]) openLocked(ctx context.Context, rc *cache.RequestContext) *batch[A, R] {
	b := c.global
	if c.scope == RequestScope {
		b = c.perRequest[rc]
	}
	if b != nil {
		return b
	}
	base := context.Background() // GlobalScope: the batch belongs to no caller
	if c.scope == RequestScope {
		base = context.WithoutCancel(ctx) // the request's values (request log, cache)
	}
	b = &batch[A, R]{rc: rc}
	b.ctx, b.cancel = context.WithCancel(base)
	if c.scope == RequestScope {
		c.perRequest[rc] = b
	} else {
		c.global = b
	}
	return b
}

// detachLocked closes b for new requests: it is fired or dropped next.
func (c *core[A, R]) detachLocked(b *batch[A, R]) {
	if c.scope == RequestScope {
		if c.perRequest[b.rc] == b {
			delete(c.perRequest, b.rc)
		}
	} else if c.global == b {
		c.global = nil
	}
	b.fired = true
	b.live = len(b.reqs)
}

// onTimer fires b at the end of its timer delay unless it was fired as full already.
func (c *core[A, R]) onTimer(b *batch[A, R]) {
	c.mu.Lock()
	if b.fired {
		c.mu.Unlock()
		return
	}
	c.detachLocked(b)
	c.mu.Unlock()
	c.fire(b)
}

// fire runs the batch and fails every request it left without an outcome.
func (c *core[A, R]) fire(b *batch[A, R]) {
	defer b.cancel()
	c.metrics.MarkBatch(len(b.reqs))
	err := c.noResponse
	if perr := protect(c.key, "batch", func() { c.run(b.ctx, b.reqs) }); perr != nil {
		err = perr
	}
	for _, r := range b.reqs {
		r.SetError(err)
	}
}

// join counts one more waiter of a request found in the request cache; false when the
// request was abandoned and must not be used.
func (c *core[A, R]) join(r *Request[A, R]) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.abandoned {
		return false
	}
	r.waiters++
	if r.waiters == 1 && r.b.fired {
		r.b.live++
	}
	return true
}

// await waits for r's outcome or the end of ctx; then the caller leaves the batch and
// gets ctx's cause.
func (c *core[A, R]) await(ctx context.Context, r *Request[A, R]) error {
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
	}
	select {
	case <-r.done:
		return nil
	default:
	}
	err := context.Cause(ctx)
	c.leave(r, err)
	return err
}

// leave uncounts a waiter that gave up. A request nobody waits for any more leaves its
// open batch (an empty batch is dropped and its timer stopped); when nobody waits for any
// request of a fired batch, the batch command is cancelled. The others are unaffected.
func (c *core[A, R]) leave(r *Request[A, R], cause error) {
	c.mu.Lock()
	r.waiters--
	if r.waiters > 0 || r.abandoned {
		c.mu.Unlock()
		return
	}
	b := r.b
	var gone []*Request[A, R]
	var timer clock.Timer
	var cancel context.CancelFunc
	switch {
	case !b.fired:
		b.reqs = slices.DeleteFunc(b.reqs, func(o *Request[A, R]) bool { return o == r })
		if r.cached && b.dedup[r.cacheKey] == r {
			delete(b.dedup, r.cacheKey)
		}
		gone = []*Request[A, R]{r}
		if len(b.reqs) == 0 {
			c.detachLocked(b)
			timer, cancel = b.timer, b.cancel
		}
	default:
		if b.live--; b.live == 0 {
			cancel = b.cancel
			gone = b.reqs
		}
	}
	var forget []*Request[A, R]
	for _, g := range gone {
		if !isDone(g) {
			g.abandoned = true
			forget = append(forget, g)
		}
	}
	c.mu.Unlock()
	stopTimer(timer)
	if cancel != nil {
		cancel()
	}
	for _, g := range forget {
		g.SetError(cause)
		if g.rc != nil {
			g.rc.Cache().Clear(c.cacheNS, g.cacheKey)
		}
	}
}

func isDone[A, R any](r *Request[A, R]) bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// protect calls f and turns a panic into an error wrapping ErrBadBatch that names where
// it happened (in the batch, in CacheKey).
func protect(key, where string, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("collapser %s: panic in %s: %v: %w", key, where, p, ErrBadBatch)
		}
	}()
	f()
	return nil
}
