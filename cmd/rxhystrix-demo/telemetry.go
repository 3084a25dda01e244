package main

import (
	"context"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixotel"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixprom"
)

// metricsHandler serves the metrics of rt, and after them those of the Go runtime, for
// Prometheus; stop stops the handler's breaker subscription.
func metricsHandler(rt *command.Runtime) (h http.Handler, stop func()) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	mh := hystrixprom.NewHandler(rt, hystrixprom.HandlerOpts{Gatherer: reg})
	return mh, mh.Close
}

// tracing returns the tracer of the demo's pages. With traces set, every page and every
// command execution in it is a span, written to out as one JSON object per line;
// otherwise nothing is traced. shutdown writes the spans still buffered.
func tracing(rt *command.Runtime, traces bool, out io.Writer) (tr trace.Tracer, shutdown func() error, err error) {
	if !traces {
		return noop.NewTracerProvider().Tracer(""), func() error { return nil }, nil
	}
	exp, err := stdouttrace.New(stdouttrace.WithWriter(out))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	hystrixotel.NewTracer(tp).Install(rt.Hooks())
	return tp.Tracer("rxhystrix-demo"), func() error { return tp.Shutdown(context.Background()) }, nil
}
