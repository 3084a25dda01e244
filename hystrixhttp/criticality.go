package hystrixhttp

import (
	"context"
	"net/http"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// CriticalityHeader is the request header Middleware reads a request's criticality from:
// CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or SHEDDABLE (letter case is ignored; a missing
// or unknown value is CRITICAL). Under ADAPTIVE isolation the lowest criticality is refused
// first (see package adaptive). Transport sets it from the criticality the request's
// context was given, unless the request has it already.
const CriticalityHeader = "Hystrix-Criticality"

// withCriticality returns req with CriticalityHeader set to the criticality its context
// was given (adaptive.WithCriticality, or Middleware's from the incoming request), so that
// the next service sheds by it too; req as it is when its context was given none or the
// header is set already. req is the run's copy of the caller's request: its header is
// cloned before the change, the caller's is left alone.
func withCriticality(req *http.Request) *http.Request {
	c, ok := adaptive.Lookup(req.Context())
	if !ok || req.Header.Get(CriticalityHeader) != "" {
		return req
	}
	h := req.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(CriticalityHeader, c.String())
	req.Header = h
	return req
}

// requestContext returns r's context, carrying the criticality of its CriticalityHeader.
func requestContext(r *http.Request) context.Context {
	ctx := r.Context()
	if v := r.Header.Get(CriticalityHeader); v != "" {
		if c, err := adaptive.ParseCriticality(v); err == nil {
			ctx = adaptive.WithCriticality(ctx, c)
		}
	}
	return ctx
}
