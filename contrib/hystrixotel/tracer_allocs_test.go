//go:build !race

package hystrixotel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestTracerAllocatesNoMoreThanTheSDK pins what the Tracer allocates per execution of a
// key it has traced before, next to the SDK calls it makes (the race detector changes
// allocation counts, so this runs without it): nothing at all outside a trace or inside
// one that is not sampled (no span is started), nothing of its own for a span its sampler
// drops, and only the execution (its context) for one that records.
func TestTracerAllocatesNoMoreThanTheSDK(t *testing.T) {
	info := hooks.Info{CommandKey: "K", GroupKey: "G", ThreadPoolKey: "P"}
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		sampler sdktrace.Sampler
		spans   bool // the Tracer starts a span
		own     float64
	}{
		{"no trace", context.Background(), sdktrace.AlwaysSample(), false, 0},
		{"a trace not sampled", remoteParent(context.Background(), false), sdktrace.AlwaysSample(), false, 0},
		{"a span the sampler drops", remoteParent(context.Background(), true), sdktrace.NeverSample(), true, 0},
		{"a span recorded", remoteParent(context.Background(), true), sdktrace.AlwaysSample(), true, 1}, // the execution
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(tc.sampler), sdktrace.WithBatcher(discard{}))
			defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
			tr := NewTracer(tp)
			traced := testing.AllocsPerRun(100, func() {
				x, err := tr.OnStart(ctx, info)
				require.NoError(t, err)
				tr.MarkEvent(x, metrics.Success, info.CommandKey)
				tr.OnSuccess(x, info)
			})

			var spans float64
			if tc.spans {
				sdk := tp.Tracer(ScopeName)
				start := []attribute.KeyValue{AttrCommand.String("K"), AttrGroup.String("G"), AttrThreadPool.String("P")}
				events := []attribute.KeyValue{AttrEvents.StringSlice([]string{"SUCCESS"})}
				spans = testing.AllocsPerRun(100, func() {
					_, span := sdk.Start(ctx, info.CommandKey, internal...)
					if span.IsRecording() {
						span.SetAttributes(start...)
						span.SetAttributes(events...)
					}
					span.End()
				})
				require.Positive(t, spans, "the SDK's span allocates")
			}
			assert.Equal(t, spans+tc.own, traced, "the SDK's %v and the Tracer's own %v", spans, tc.own)
		})
	}
}

// TestAnAttemptSpanAllocatesNoMoreThanTheSDK pins what attempt spans add to a recorded
// execution that retries, next to the same execution with the span event "retry" alone
// (the shape before attempt spans): per attempt the SDK's span and its calls, and once
// per execution that retries the Tracer's attempts and the first attempt's start time.
func TestAnAttemptSpanAllocatesNoMoreThanTheSDK(t *testing.T) {
	info := hooks.Info{CommandKey: "K", GroupKey: "G", ThreadPoolKey: "P"}
	ctx := remoteParent(context.Background(), true)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discard{}))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	tr := NewTracer(tp)
	err := errors.New("down")
	run := func(retries int, retry func(x context.Context)) float64 {
		return testing.AllocsPerRun(100, func() {
			x, _ := tr.OnStart(ctx, info)
			for range retries {
				tr.MarkEvent(x, metrics.Failure, info.CommandKey)
				tr.OnExecutionError(x, info, err)
				retry(x)
			}
			tr.MarkEvent(x, metrics.Success, info.CommandKey)
			tr.OnSuccess(x, info)
		})
	}
	attemptSpans := func(retries int) float64 {
		with := run(retries, func(x context.Context) { tr.MarkEvent(x, metrics.Retry, info.CommandKey) })
		without := run(retries, func(x context.Context) {
			x.(*execution).events.Or(1 << metrics.Retry)
			x.(*execution).span.AddEvent(EventRetry)
		})
		return with - without
	}

	sdk := tp.Tracer(ScopeName)
	attrs := attemptAttributes(2, 1<<metrics.Failure|1<<metrics.Retry)
	span := testing.AllocsPerRun(100, func() {
		_, s := sdk.Start(ctx, "K attempt", internal...)
		s.SetAttributes(attrs...)
		s.SetStatus(codes.Error, "down")
		s.End(trace.WithTimestamp(time.Now()))
	})
	const own = 4 // the attempts, and the options of the first attempt span's start (its timestamp)
	assert.Equal(t, 2*span+own, attemptSpans(1), "the first retry: two attempt spans of %v and the Tracer's own", span)
	assert.Equal(t, 3*span+own, attemptSpans(2), "a further retry: an attempt span of %v", span)
}

// discard is a span exporter that drops every span.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }
