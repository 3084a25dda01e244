package hystrixgrpc

import (
	"context"

	"google.golang.org/grpc/metadata"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// CriticalityMetadata is the metadata key the server interceptors read a call's
// criticality from: CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or SHEDDABLE (letter case is
// ignored; a missing or unknown value is CRITICAL). Under ADAPTIVE isolation the lowest
// criticality is refused first (see package adaptive). The client interceptors set it from
// the criticality the call's context was given, unless the outgoing metadata has it.
const CriticalityMetadata = "hystrix-criticality"

// outgoing returns ctx with CriticalityMetadata in its outgoing metadata set to the
// criticality ctx was given (adaptive.WithCriticality, or a server interceptor's from the
// incoming call), so that the next service sheds by it too; ctx as it is when it was given
// none or the metadata has the key already.
func outgoing(ctx context.Context) context.Context {
	c, ok := adaptive.Lookup(ctx)
	if !ok {
		return ctx
	}
	if md, _ := metadata.FromOutgoingContext(ctx); len(md.Get(CriticalityMetadata)) > 0 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, CriticalityMetadata, c.String())
}

// callContext returns ctx carrying the criticality of its incoming CriticalityMetadata.
func callContext(ctx context.Context) context.Context {
	if v := metadata.ValueFromIncomingContext(ctx, CriticalityMetadata); len(v) > 0 {
		if c, err := adaptive.ParseCriticality(v[0]); err == nil {
			return adaptive.WithCriticality(ctx, c)
		}
	}
	return ctx
}
