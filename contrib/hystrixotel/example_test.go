package hystrixotel_test

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixotel"
)

// instrument traces the executions of rt that run in sampled traces and publishes its
// metrics through OpenTelemetry (docs/opentelemetry.md); pass
// otel.GetTracerProvider() and otel.GetMeterProvider() to use the global ones.
func instrument(rt *command.Runtime, tp trace.TracerProvider, mp metric.MeterProvider) (*hystrixotel.Metrics, error) {
	// A span per execution in a sampled trace, a child of the caller's span; your own
	// hooks keep running.
	hystrixotel.NewTracer(tp).Install(rt.Hooks())
	// The same metrics as hystrixprom's, read at each collection.
	return hystrixotel.RegisterMetrics(mp, rt)
}

func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	clk := clock.NewFake(time.Now()) // so the example need not wait for the metrics' 100 ms bucket
	rt := command.NewRuntime(command.WithClock(clk))
	defer rt.Close()

	m, err := instrument(rt, tp, mp)
	if err != nil {
		panic(err)
	}
	defer func() { _ = m.Close() }()

	ctx, handler := tp.Tracer("shop").Start(context.Background(), "GET /user")
	name, _ := command.New(command.Setter{Runtime: rt, CommandKey: "GetUser", GroupKey: "UserService"},
		func(context.Context) (string, error) { return "", fmt.Errorf("user service down") }).
		WithFallback(func(context.Context, error) (string, error) { return "anonymous", nil }).
		Execute(ctx)
	handler.End()
	clk.Advance(time.Second) // cumulative counts move on at the end of a rolling-stats bucket
	rt.Metrics().Flush()

	for _, s := range spans.Ended() {
		for _, a := range s.Attributes() {
			if a.Key == hystrixotel.AttrEvents {
				fmt.Println(s.Name(), a.Value.AsStringSlice(), "child of GET /user:", handler.SpanContext().SpanID() == s.Parent().SpanID())
			}
		}
	}
	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	for _, sm := range rm.ScopeMetrics {
		for _, mt := range sm.Metrics {
			if mt.Name == "hystrix.command.events" {
				for _, dp := range mt.Data.(metricdata.Sum[int64]).DataPoints {
					if ev, _ := dp.Attributes.Value("hystrix.event"); dp.Value > 0 {
						fmt.Println(mt.Name, ev.AsString(), dp.Value)
					}
				}
			}
		}
	}
	fmt.Println(name)
	// Unordered output:
	// GetUser [FAILURE FALLBACK_SUCCESS] child of GET /user: true
	// hystrix.command.events failure 1
	// hystrix.command.events fallback_success 1
	// anonymous
}
