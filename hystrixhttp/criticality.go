package hystrixhttp

import (
	"context"
	"net/http"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/command"
)

// CriticalityHeader is the request header Middleware reads a request's criticality from:
// CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or SHEDDABLE (letter case is ignored; a missing
// or unknown value is CRITICAL). Under ADAPTIVE isolation the lowest criticality is refused
// first (see package adaptive).
const CriticalityHeader = "Hystrix-Criticality"

// requestContext returns r's context, carrying the criticality of its CriticalityHeader.
func requestContext(r *http.Request) context.Context {
	ctx := r.Context()
	if v := r.Header.Get(CriticalityHeader); v != "" {
		if c, err := adaptive.ParseCriticality(v); err == nil {
			ctx = command.WithCriticality(ctx, c)
		}
	}
	return ctx
}
