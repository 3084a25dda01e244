package cache

import (
	"context"
	"sync/atomic"
)

// RequestContext is the state of one request: its request cache and request log. It rides
// in a context.Context, so it follows the request across goroutines, pools and timers
// with no thread-locals. Create one per incoming request with NewRequestContext and Close
// it when the request ends.
type RequestContext struct {
	cache  RequestCache
	log    RequestLog
	closed atomic.Bool
}

type contextKey struct{}

// NewRequestContext returns a child of parent that carries a new RequestContext, and that
// RequestContext. A RequestContext already in parent is shadowed, not shared.
func NewRequestContext(parent context.Context) (context.Context, *RequestContext) {
	rc := &RequestContext{}
	return context.WithValue(parent, contextKey{}, rc), rc
}

// FromContext returns the RequestContext carried by ctx, or nil when there is none or it
// has been closed. Commands treat nil as "no request context": no caching, no logging, and
// a command with a cache key fails with a bad-request error, as in Hystrix.
func FromContext(ctx context.Context) *RequestContext {
	rc, _ := ctx.Value(contextKey{}).(*RequestContext)
	if rc == nil || rc.closed.Load() {
		return nil
	}
	return rc
}

// Cache returns the request cache of this request.
func (rc *RequestContext) Cache() *RequestCache { return &rc.cache }

// Log returns the request log of this request.
func (rc *RequestContext) Log() *RequestLog { return &rc.log }

// Close ends the request: the cache drops its entries and stops caching (GetOrStart just
// runs start), and the log stops accepting entries but stays readable, so a response
// header can still be written from it: it shows each command as it stood at Close, and
// keeps no command (the request context may stay reachable from a long-lived caller's
// context; its commands must not). FromContext returns nil afterwards. Close is
// idempotent and safe to call concurrently with commands that are still running.
func (rc *RequestContext) Close() {
	if rc.closed.Swap(true) {
		return
	}
	rc.cache.close()
	rc.log.close()
}
