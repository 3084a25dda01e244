package hystrixotel

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var errDown = errors.New("dependency down")

// env is a runtime on a fake clock with the Tracer installed in front of a recording
// hook, the SDK's in-memory span exporter (synchronous: a span is exported when it ends)
// and the Metrics on a manual reader.
type env struct {
	t      *testing.T
	rt     *command.Runtime
	clk    *clock.Fake
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	rec    *hooktest.RecordingHook
	reader *sdkmetric.ManualReader
}

// newEnv returns an env whose Tracer has opts.
func newEnv(t *testing.T, opts ...TracerOption) *env {
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	store := config.NewStore()
	reg := hooks.NewRegistry()
	rec := &hooktest.RecordingHook{}
	reg.SetExecutionHook(rec)
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	NewTracer(tp, opts...).Install(reg)
	rt := command.NewRuntime(command.WithClock(clk), command.WithConfig(store), command.WithHooks(reg))

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	m, err := RegisterMetrics(mp, rt)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, m.Close())
		require.NoError(t, mp.Shutdown(context.Background()))
		require.NoError(t, tp.Shutdown(context.Background()))
		rt.Metrics().Flush()
		rt.Close()
		store.Close()
	})
	return &env{t: t, rt: rt, clk: clk, spans: spans, tp: tp, rec: rec, reader: reader}
}

// setter returns a Setter of key in group "Shop" with properties as name, value pairs;
// SEMAPHORE unless they say otherwise.
func (e *env) setter(key string, kv ...string) command.Setter {
	props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return command.Setter{Runtime: e.rt, CommandKey: key, GroupKey: "Shop", Properties: props}
}

// inCallerSpan runs f in the context of a span "caller" and returns that span's context.
func (e *env) inCallerSpan(ctx context.Context, f func(context.Context)) trace.SpanContext {
	ctx, span := e.tp.Tracer("test").Start(ctx, "caller")
	f(ctx)
	span.End()
	return span.SpanContext()
}

// span returns the one exported span named name.
func (e *env) span(name string) tracetest.SpanStub {
	e.t.Helper()
	var found []tracetest.SpanStub
	for _, s := range e.spans.GetSpans() {
		if s.Name == name {
			found = append(found, s)
		}
	}
	require.Len(e.t, found, 1, "spans named %s", name)
	return found[0]
}

// remoteParent returns ctx carrying the span context of a caller in another process, as
// a propagator extracts it from an incoming request: sampled or not.
func remoteParent(ctx context.Context, sampled bool) context.Context {
	var flags trace.TraceFlags
	if sampled {
		flags = trace.FlagsSampled
	}
	return trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: flags, Remote: true}))
}
