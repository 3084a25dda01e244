// Package hystrixotel connects rxhystrix to OpenTelemetry: a span per command execution
// (Tracer) and the library's metrics as observable instruments (Metrics), for teams that
// export OTLP. It lives in a module of its own, so a program that does not import it
// links no OpenTelemetry.
//
//	hystrixotel.NewTracer(otel.GetTracerProvider()).Install(rt.Hooks())
//	m, err := hystrixotel.RegisterMetrics(otel.GetMeterProvider(), rt)
//
// # Spans
//
// The Tracer is an execution hook and an event notifier at once:
//
//	caller ctx (span "handler")
//	  └─ OnStart: span "<command key>" {hystrix.command, hystrix.group, hystrix.thread_pool}
//	       │  the returned context carries it ─▶ run(ctx) ─▶ child spans of your calls
//	       │  MarkEvent: events collected; TIMEOUT ─▶ span event "timeout"
//	       │  OnExecutionError / OnFallbackError ─▶ exception events
//	       │  OnFallbackStart ─▶ span event "fallback"
//	       └─ OnSuccess | OnUnsubscribe ─▶ end {hystrix.events}
//	          OnError ─▶ end {hystrix.events, hystrix.failure_type}, status Error, and an
//	                     exception event unless the error is (or wraps) the run's
//
// One exception event per error: a command that fails without a fallback records its
// run's error once, not again as the command's error that wraps it.
//
// A fallback that answers leaves the status Unset: the caller got a value; the events
// (FAILURE, FALLBACK_SUCCESS) and the exception event tell what happened. A sampled-out
// execution keeps nothing but the context that carries the trace on.
//
// # Metrics
//
// RegisterMetrics publishes the catalogue of contrib/hystrixprom under OpenTelemetry
// names (hystrix.command.events, unit {event}; hystrix.command.execution_latency, unit
// s, with a hystrix.percentile attribute; ...): one callback reads the registries at
// each collection, so executions do no work for it and an evicted key's data points
// disappear with it. Latency percentiles are gauges because the library keeps rolling
// histograms that it empties bucket by bucket, not cumulative ones (see
// contrib/hystrixprom).
package hystrixotel
