package command

import (
	"context"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// WithCriticality returns a copy of ctx whose executions carry criticality c: under
// ADAPTIVE isolation, the lowest criticality is refused first (see package adaptive). An
// execution whose context carries none is adaptive.Critical. hystrixhttp.Transport and
// hystrixgrpc's client pass c on to the next service.
func WithCriticality(ctx context.Context, c adaptive.Criticality) context.Context {
	return adaptive.WithCriticality(ctx, c)
}
