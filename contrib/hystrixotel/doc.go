// Package hystrixotel connects rxhystrix to OpenTelemetry: a span per command execution
// inside a sampled trace (Tracer) and the library's metrics as observable instruments (Metrics), for teams that
// export OTLP. It lives in a module of its own, so a program that does not import it
// links no OpenTelemetry.
//
//	hystrixotel.NewTracer(otel.GetTracerProvider()).Install(rt.Hooks()) // or NewTracer(tp, hystrixotel.WithRootSpans())
//	m, err := hystrixotel.RegisterMetrics(otel.GetMeterProvider(), rt)
//
// # Spans
//
// The Tracer is an execution hook and an event notifier at once. An execution gets a
// span when it runs inside a sampled trace: its caller's context carries a span context
// with the sampled flag (a request handler's span, or one a propagator extracted). Outside
// any trace it gets none, unless the Tracer is made WithRootSpans (then it starts a trace
// that the sampler decides on); inside a trace that is not sampled it gets none either,
// and the caller's context, which carries that trace on, is the run's:
//
//	caller ctx (span "handler", sampled)
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
// (FAILURE, FALLBACK_SUCCESS) and the exception event tell what happened. An execution
// whose span the sampler drops keeps nothing but the context that carries the trace on.
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
// Measured side by side in bench (BenchmarkTelemetry: Kind.ExecutePooled on a SEMAPHORE key
// whose run answers, 0.26 us and no allocation without telemetry; medians of 6 runs, each
// the median over its turns of the difference to no telemetry, on a 2-core AMD EPYC
// shared with other jobs, load average 5.2 to 6.2, go1.26.8, 2026-12-02):
//
//	a hook and a notifier that do nothing    +82 ns, no allocation
//	Metrics (SDK, collected every second)    nothing measurable, no allocation
//	Tracer, no trace in progress             +73 ns, no allocation
//	Tracer, inside a trace not sampled       +99 ns, no allocation
//	Tracer, inside a recorded trace          +2.2 us, 6 allocations
//
// Outside a recorded trace the Tracer costs the calls a command makes to a hook and a
// notifier (less the emit methods and MarkCommandExecution, which it leaves out) plus a
// lookup in the context per call: no span, no allocation
// (TestTracerAllocatesNoMoreThanTheSDK pins it). Inside one, each execution
// is a span: the SDK's (5 allocations with a batch processor) and the Tracer's
// execution (1). With WithRootSpans every execution outside a trace pays that too,
// unless the sampler drops it (then the SDK's non-recording span and its context, 2
// allocations). An execution that retries adds an attempt span per attempt (the SDK's:
// 6 allocations with a batch processor) and 4 allocations of the Tracer's once
// (TestAnAttemptSpanAllocatesNoMoreThanTheSDK). A span cannot be free with the SDK: the
// caller's sampler decides how many executions pay it, e.g.
// sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.01)) at the edge records 1 % of the
// traces and the commands inside the others cost the lookups alone. Metrics alone (no
// Tracer) cost the executions nothing.
package hystrixotel
