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
//	       │  MarkEvent: events collected; TIMEOUT ─▶ span event "timeout", RETRY ─▶ "retry"
//	       │  OnExecutionError / OnFallbackError ─▶ exception events
//	       │  OnFallbackStart ─▶ span event "fallback"
//	       └─ OnSuccess | OnUnsubscribe ─▶ end {hystrix.events}
//	          OnError ─▶ end {hystrix.events, hystrix.failure_type}, status Error, and an
//	                     exception event unless the error is (or wraps) the run's
//
// A retry (retry.maxAttempts > 1) makes each attempt a span of its own, a child of the
// command span, so a trace shows them as siblings:
//
//	span "<command key>"  {hystrix.events [SUCCESS FAILURE RETRY]}, span events "retry"
//	  ├─ "<key> attempt" {hystrix.attempt 1, hystrix.events [FAILURE]}        status Error
//	  ├─ "<key> attempt" {hystrix.attempt 2, hystrix.events [FAILURE RETRY]}  status Error
//	  └─ "<key> attempt" {hystrix.attempt 3, hystrix.events [SUCCESS RETRY]}
//
// The first RETRY makes the first attempt's span after the fact (from the command span's
// start to when the attempt FAILED or TIMED OUT) and starts the second's; each later RETRY
// ends the current one and starts the next, and the command's end ends the last. An
// attempt span ends when its outcome was marked (the backoff is between the spans); its
// status is Error, described by its run's error or its outcome (TIMEOUT, ...), unless it
// succeeded; the fallback's and the budget's events stay on the command span. An
// execution that does not retry has no attempt span and pays an atomic load for it (and a
// clock read when its first attempt fails). Attempts are told apart by the order of the
// events, so attempts running at once (hedges) need a hook per attempt first; and run's
// own spans stay children of the command span (no hook gives run the attempt's context).
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
// contrib/hystrixprom). Each key's attribute sets are made at its first collection. A
// key under ADAPTIVE isolation adds the gauges hystrix.command.adaptive.limit, .inflight
// and .queued, and its rejections count as the event adaptive_rejected.
//
// # Cost per execution
//
// Measured side by side in bench (BenchmarkTelemetry: Execute on a SEMAPHORE key whose
// run answers, 1.08 us and 1 allocation without telemetry; medians of 6 runs on a 2-core
// AMD EPYC shared with other jobs, go1.26.8, 2026-12-02):
//
//	Metrics (SDK, collected every second)     nothing measurable, no allocation
//	Tracer, span sampled out                  +1.3 us, +3 allocations
//	Tracer, span recorded (batch processor)   +5.1 us, +7 allocations
//
// Of a sampled-out execution's, 0.48 us and 1 allocation are the command's for having a
// hook and a notifier at all (the benchmark's "hooks" lane: the hook calls, a third clock
// read, the events handed to MarkCommandExecution), the rest is the SDK's non-recording
// span and its context: the Tracer allocates nothing of its own there. A recorded one
// adds the SDK's span (5 allocations with a batch processor) and the Tracer's execution
// (1). An execution that retries adds an attempt span per attempt (the SDK's: 6
// allocations with a batch processor) and 4 allocations of the Tracer's once
// (TestAnAttemptSpanAllocatesNoMoreThanTheSDK). A span per execution cannot be free with the SDK; the choice is how many
// executions get one: a sampler such as
// sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.01)) records 1 % of the traces and
// leaves the others at the sampled-out cost, and Metrics alone (no Tracer) costs the
// executions nothing.
package hystrixotel
