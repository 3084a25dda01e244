//go:build !race

package hystrixotel

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestTracerAllocatesNoMoreThanTheSDK pins what the Tracer allocates per execution of a
// key it has traced before, next to the SDK calls it makes (the race detector changes
// allocation counts, so this runs without it): nothing of its own for a sampled-out
// execution, and only the execution (its context) for one that records.
func TestTracerAllocatesNoMoreThanTheSDK(t *testing.T) {
	info := hooks.Info{CommandKey: "K", GroupKey: "G", ThreadPoolKey: "P"}
	ctx := context.Background()
	for _, tc := range []struct {
		sampler sdktrace.Sampler
		own     float64
	}{
		{sdktrace.NeverSample(), 0},
		{sdktrace.AlwaysSample(), 1}, // the execution
	} {
		t.Run(tc.sampler.Description(), func(t *testing.T) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tc.sampler), sdktrace.WithBatcher(discard{}))
			defer func() { require.NoError(t, tp.Shutdown(ctx)) }()
			tr := NewTracer(tp)
			traced := testing.AllocsPerRun(100, func() {
				x, err := tr.OnStart(ctx, info)
				require.NoError(t, err)
				tr.MarkEvent(x, metrics.Success, info.CommandKey)
				tr.OnSuccess(x, info)
			})

			sdk := tp.Tracer(ScopeName)
			start := []attribute.KeyValue{AttrCommand.String("K"), AttrGroup.String("G"), AttrThreadPool.String("P")}
			events := []attribute.KeyValue{AttrEvents.StringSlice([]string{"SUCCESS"})}
			spans := testing.AllocsPerRun(100, func() {
				_, span := sdk.Start(ctx, info.CommandKey, internal...)
				if span.IsRecording() {
					span.SetAttributes(start...)
					span.SetAttributes(events...)
				}
				span.End()
			})
			assert.Equal(t, spans+tc.own, traced, "the SDK's %v and the Tracer's own %v", spans, tc.own)
		})
	}
}

// discard is a span exporter that drops every span.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }
