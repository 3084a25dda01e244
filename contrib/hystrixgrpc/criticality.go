package hystrixgrpc

import (
	"context"

	"google.golang.org/grpc/metadata"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/command"
)

// CriticalityMetadata is the metadata key the server interceptors read a call's
// criticality from: CRITICAL_PLUS, CRITICAL, SHEDDABLE_PLUS or SHEDDABLE (letter case is
// ignored; a missing or unknown value is CRITICAL). Under ADAPTIVE isolation the lowest
// criticality is refused first (see package adaptive).
const CriticalityMetadata = "hystrix-criticality"

// callContext returns ctx carrying the criticality of its incoming CriticalityMetadata.
func callContext(ctx context.Context) context.Context {
	if v := metadata.ValueFromIncomingContext(ctx, CriticalityMetadata); len(v) > 0 {
		if c, err := adaptive.ParseCriticality(v[0]); err == nil {
			return command.WithCriticality(ctx, c)
		}
	}
	return ctx
}
