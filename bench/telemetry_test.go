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

	"github.com/rxhystrix/rxhystrix/contrib/hystrixotel"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixprom"
	"github.com/rxhystrix/rxhystrix/hooks"
)

// telemetryLane is one runtime of BenchmarkTelemetry with a telemetry attached (or none).
type telemetryLane struct {
	name   string
	attach func(b *testing.B, t *rxTarget) // nil: no telemetry
}

var telemetryLanes = []telemetryLane{
	{name: "off"},
	{name: "hooks", attach: func(_ *testing.B, t *rxTarget) {
		t.rt.Hooks().SetExecutionHook(idleHooks{})
		t.rt.Hooks().SetEventNotifier(idleHooks{})
	}},
	{name: "prometheus", attach: attachPrometheus},
	{name: "otel-metrics", attach: attachOTelMetrics},
	{name: "otel", attach: func(b *testing.B, t *rxTarget) {
		attachOTelTracer(b, t, sdktrace.ParentBased(sdktrace.AlwaysSample())) // the SDK's default sampler
		attachOTelMetrics(b, t)
	}},
	{name: "otel-sampledout", attach: func(b *testing.B, t *rxTarget) {
		attachOTelTracer(b, t, sdktrace.NeverSample())
		attachOTelMetrics(b, t)
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

// attachOTelTracer installs a hystrixotel.Tracer on t's runtime, its spans from an SDK
// tracer provider with sampler s and a batch span processor into an exporter that drops
// everything.
func attachOTelTracer(b *testing.B, t *rxTarget, s sdktrace.Sampler) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(s), sdktrace.WithBatcher(discardSpans{}))
	hystrixotel.NewTracer(tp).Install(t.rt.Hooks())
	b.Cleanup(func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			b.Error(err)
		}
	})
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

// BenchmarkTelemetry: the Success case (Execute on a SEMAPHORE key, a run that answers)
// on one runtime per telemetryLane, the lanes taking turns inside every iteration (a
// batch of calls each, in a rotating order) so that a shared machine's load falls on all
// of them alike: no telemetry ("off"); a hook and a notifier that do nothing, what the
// command itself pays for any ("hooks"); the Prometheus Collector registered and scraped
// once a second ("prometheus"); the OpenTelemetry Metrics on the SDK, collected once a
// second ("otel-metrics"); those and the Tracer on the SDK, every span recorded and
// exported through a batch processor ("otel"), or every span sampled out
// ("otel-sampledout"). Exporters drop what they get. Reports <lane>-ns/call,
// <lane>-overhead-ns/call (the lane's time per call minus off's) and <lane>-allocs/call
// (1,000 sequential calls, the least of three counts).
func BenchmarkTelemetry(b *testing.B) {
	const batch = 50
	calls := make([]Call, len(telemetryLanes))
	allocs := make([]float64, len(telemetryLanes))
	for i, lane := range telemetryLanes {
		t := NewRxhystrix("Telemetry-"+lane.name, Defaults()).(*rxTarget)
		b.Cleanup(t.Close)
		if lane.attach != nil {
			lane.attach(b, t)
		}
		calls[i] = func(ctx context.Context) (int, error) { return t.Do(ctx, Succeed) }
		var err error
		if allocs[i], err = allocsPerCall(calls[i], Answer); err != nil {
			b.Fatalf("%s: %v", lane.name, err)
		}
	}
	ctx := context.Background()
	spent := make([]time.Duration, len(calls))
	turns := 0
	for b.Loop() {
		for j := range calls {
			k := (turns + j) % len(calls)
			start := time.Now()
			for range batch {
				if v, err := calls[k](ctx); v != Answer || err != nil {
					b.Fatalf("%s: got %d, %v", telemetryLanes[k].name, v, err)
				}
			}
			spent[k] += time.Since(start)
		}
		turns++
	}
	off := float64(spent[0].Nanoseconds()) / float64(turns*batch)
	for k, lane := range telemetryLanes {
		ns := float64(spent[k].Nanoseconds()) / float64(turns*batch)
		b.ReportMetric(ns, lane.name+"-ns/call")
		b.ReportMetric(allocs[k], lane.name+"-allocs/call")
		if k > 0 {
			b.ReportMetric(ns-off, lane.name+"-overhead-ns/call")
		}
	}
}
