package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/contrib/hystrixotel"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixprom"
	"github.com/rxhystrix/rxhystrix/hooks"
)

// telemetryLane is one runtime of BenchmarkTelemetry with a telemetry attached (or none).
type telemetryLane struct {
	name string
	// attach attaches the telemetry to t and returns the context the lane's caller
	// executes with; nil: no telemetry, context.Background().
	attach func(b *testing.B, t *rxTarget) context.Context
}

var telemetryLanes = []telemetryLane{
	{name: "off"},
	{name: "hooks", attach: func(_ *testing.B, t *rxTarget) context.Context {
		t.rt.Hooks().SetExecutionHook(idleHooks{})
		t.rt.Hooks().SetEventNotifier(idleHooks{})
		return context.Background()
	}},
	{name: "prometheus", attach: func(b *testing.B, t *rxTarget) context.Context {
		attachPrometheus(b, t)
		return context.Background()
	}},
	{name: "otel-metrics", attach: func(b *testing.B, t *rxTarget) context.Context {
		attachOTelMetrics(b, t)
		return context.Background()
	}},
	{name: "otel", attach: func(b *testing.B, t *rxTarget) context.Context {
		attachOTelTracer(b, t)
		attachOTelMetrics(b, t)
		return context.Background() // no trace in progress
	}},
	{name: "otel-sampledout", attach: func(b *testing.B, t *rxTarget) context.Context {
		tp := attachOTelTracer(b, t)
		attachOTelMetrics(b, t)
		return callerSpan(b, tp, trace.ContextWithRemoteSpanContext(context.Background(), remoteSpan(0)))
	}},
	{name: "otel-traced", attach: func(b *testing.B, t *rxTarget) context.Context {
		tp := attachOTelTracer(b, t)
		attachOTelMetrics(b, t)
		return callerSpan(b, tp, context.Background())
	}},
}

// attachPrometheus registers a hystrixprom.Collector of t's runtime and scrapes it once a
// second through promhttp, gzip included, as a Prometheus server does.
func attachPrometheus(b *testing.B, t *rxTarget) {
	c := hystrixprom.New(t.rt)
	b.Cleanup(c.Close)
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	scrape := func() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Errorf("scrape: %d", w.Code)
		}
	}
	scrape()
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				scrape()
			case <-stop:
				return
			}
		}
	}()
	b.Cleanup(func() { close(stop); <-done })
}

// attachOTelMetrics registers hystrixotel.Metrics of t's runtime on an SDK meter provider
// whose periodic reader collects once a second into an exporter that drops everything.
func attachOTelMetrics(b *testing.B, t *rxTarget) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(
		sdkmetric.NewPeriodicReader(discardMetrics{}, sdkmetric.WithInterval(time.Second))))
	m, err := hystrixotel.RegisterMetrics(mp, t.rt)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := m.Close(); err != nil {
			b.Error(err)
		}
		if err := mp.Shutdown(context.Background()); err != nil {
			b.Error(err)
		}
	})
}

// attachOTelTracer installs a hystrixotel.Tracer (default options) on t's runtime, its
// spans from an SDK tracer provider with the SDK's default sampler
// (ParentBased(AlwaysSample)) and a batch span processor into an exporter that drops
// everything, and returns the provider.
func attachOTelTracer(b *testing.B, t *rxTarget) *sdktrace.TracerProvider {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}))
	hystrixotel.NewTracer(tp).Install(t.rt.Hooks())
	b.Cleanup(func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			b.Error(err)
		}
	})
	return tp
}

// callerSpan returns ctx carrying the span of a request handler started from tp (as an
// HTTP server middleware starts it), a child of the span context in ctx if any; it ends
// with the benchmark.
func callerSpan(b *testing.B, tp *sdktrace.TracerProvider, ctx context.Context) context.Context {
	ctx, span := tp.Tracer("handler").Start(ctx, "GET /")
	b.Cleanup(func() { span.End() })
	return ctx
}

// remoteSpan is the span context of a caller in another process with trace flags flags,
// as a propagator extracts it from an incoming request.
func remoteSpan(flags trace.TraceFlags) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: flags, Remote: true})
}

// idleHooks is an execution hook and event notifier that does nothing but is not the
// no-op one: what a command pays for having a hook and a notifier at all.
type idleHooks struct {
	hooks.NoopHook
	hooks.NoopNotifier
}

// discardSpans is a span exporter that drops every span.
type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

// discardMetrics is a metric exporter that drops every collection.
type discardMetrics struct{}

func (discardMetrics) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (discardMetrics) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (discardMetrics) Export(context.Context, *metricdata.ResourceMetrics) error { return nil }
func (discardMetrics) ForceFlush(context.Context) error                          { return nil }
func (discardMetrics) Shutdown(context.Context) error                            { return nil }

// BenchmarkTelemetry: the Success case (Kind.ExecutePooled on a SEMAPHORE key, a run that
// answers) on one runtime per telemetryLane, the lanes taking turns inside every
// iteration (a batch of calls each, in a rotating order) so that a shared machine's load
// falls on all of them alike: no telemetry ("off"); a hook and a notifier that do nothing, what the
// command itself pays for any ("hooks"); the Prometheus Collector registered and scraped
// once a second ("prometheus"); the OpenTelemetry Metrics on the SDK, collected once a
// second ("otel-metrics"); those and the Tracer on the SDK (default sampler, batch
// processor) with a caller outside any trace ("otel"), inside a trace that is not sampled
// ("otel-sampledout": the handler's span is the SDK's non-recording one), and inside a
// recorded trace, every command span recorded ("otel-traced"). Exporters drop what they
// get. Reports, as medians over the turns (a turn the machine's other jobs interrupted
// does not move them), <lane>-ns/call and <lane>-overhead-ns/call (the lane's time per
// call minus off's in the same turn), and <lane>-allocs/call (1,000 sequential calls, the
// least of three counts).
func BenchmarkTelemetry(b *testing.B) {
	const batch = 50
	calls := make([]Call, len(telemetryLanes))
	allocs := make([]float64, len(telemetryLanes))
	for i, lane := range telemetryLanes {
		t := NewRxhystrix("Telemetry-"+lane.name, Defaults()).(*rxTarget)
		b.Cleanup(t.Close)
		ctx := context.Background()
		if lane.attach != nil {
			ctx = lane.attach(b, t)
		}
		calls[i] = func(context.Context) (int, error) { return t.Do(ctx, Succeed) }
		var err error
		if allocs[i], err = allocsPerCall(calls[i], Answer); err != nil {
			b.Fatalf("%s: %v", lane.name, err)
		}
	}
	bg := context.Background()                   // each lane's call executes with its own context
	spent := make([][]time.Duration, len(calls)) // per lane, the time of its batch in each turn
	for b.Loop() {
		turn := len(spent[0])
		for j := range calls {
			k := (turn + j) % len(calls)
			start := time.Now()
			for range batch {
				if v, err := calls[k](bg); v != Answer || err != nil {
					b.Fatalf("%s: got %d, %v", telemetryLanes[k].name, v, err)
				}
			}
			spent[k] = append(spent[k], time.Since(start))
		}
	}
	perCall := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / batch }
	for k, lane := range telemetryLanes {
		ns, over := make([]float64, len(spent[k])), make([]float64, len(spent[k]))
		for turn, d := range spent[k] {
			ns[turn], over[turn] = perCall(d), perCall(d-spent[0][turn])
		}
		b.ReportMetric(Median(ns), lane.name+"-ns/call")
		b.ReportMetric(allocs[k], lane.name+"-allocs/call")
		if k > 0 {
			b.ReportMetric(Median(over), lane.name+"-overhead-ns/call")
		}
	}
}
