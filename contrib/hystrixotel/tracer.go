package hystrixotel

import (
	"context"
	"errors"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// ScopeName is the instrumentation scope of the tracer and the meter of this package.
const ScopeName = "github.com/rxhystrix/rxhystrix/contrib/hystrixotel"

// Attribute keys of the spans (and, but for Events and FailureType, of the metrics).
const (
	AttrCommand     = attribute.Key("hystrix.command")
	AttrGroup       = attribute.Key("hystrix.group")
	AttrThreadPool  = attribute.Key("hystrix.thread_pool")
	AttrEvents      = attribute.Key("hystrix.events")       // Hystrix event names, in Hystrix order
	AttrFailureType = attribute.Key("hystrix.failure_type") // e.g. "TIMEOUT", on failed executions
	AttrAttempt     = attribute.Key("hystrix.attempt")      // an attempt span's number, from 1
)

// Names of the span events.
const (
	EventTimeout  = "timeout"  // the run did not finish within the execution timeout
	EventFallback = "fallback" // the fallback starts
	EventRetry    = "retry"    // an attempt beyond the first starts (retry.maxAttempts)
	EventHedge    = "hedge"    // an attempt starts while an earlier one has not answered (hedge.maxHedges)
)

// Tracer traces command executions as spans, children of the span in the caller's
// context. It is both a hooks.ExecutionHook and a hooks.EventNotifier and needs to be
// installed as both (Install does). A Tracer is safe for concurrent use.
//
// An execution gets a span when its caller's context carries a span context that is
// sampled: inside a trace in progress that records. Outside any trace it gets none
// unless the Tracer was made WithRootSpans, then it starts a trace of its own (which the
// sampler decides on). Inside a trace that is not sampled it gets none either: the
// caller's context goes on as the run's and still carries the trace, and the execution
// pays for the check alone (a lookup in the context per hook call the Tracer
// implements), not for a non-recording span.
//
// The span starts in OnStart and is named after the command key; the context OnStart
// returns carries it, so whatever run starts (an HTTP call, a query) is its child, on a
// pool goroutine too. It ends in OnSuccess, OnError or OnUnsubscribe with the attribute
// hystrix.events (every event the execution recorded), and on OnError with status
// Error and hystrix.failure_type. Each error is one exception event: a failed run's
// (OnExecutionError), a failed fallback's, and the command's error on OnError unless it
// is the run's error or wraps it (a failure without fallback, a bad request), which is
// recorded already. A timeout and the start of the fallback are the span events
// "timeout" and "fallback". A request-cache hit runs nothing: under the same rule it is a
// span of its own with hystrix.events [RESPONSE_FROM_CACHE], ended at once.
//
// A span starts with its name and kind alone; its attributes (hystrix.command,
// hystrix.group, hystrix.thread_pool) are set once the span records, from a set made at
// the key's first recorded execution, and hystrix.events from a set made at the first
// execution that ends with those events. So a sampler sees the command key as the span's
// name, not the attributes; a span the sampler drops costs the SDK's non-recording span
// and nothing of the Tracer's own; a recorded one allocates one object besides the
// SDK's: the execution, which is the context OnStart returns.
//
// The Tracer's emit methods and its MarkCommandExecution do nothing, and a command leaves
// them out (hooks.EmitIgnorer, hooks.ExecutionIgnorer): it does not box its values nor
// look its event list up for the Tracer.
type Tracer struct {
	hooks.NoopHook
	hooks.NoopNotifier
	tracer trace.Tracer
	roots  bool     // WithRootSpans
	keys   sync.Map // command key -> *keyAttributes, one per key ever recorded (a few hundred bytes)
}

// TracerOption configures a Tracer.
type TracerOption func(*Tracer)

// WithRootSpans makes the Tracer trace the executions whose caller's context carries no
// span context too: each starts a trace of its own, a root span that the sampler decides
// on, so that commands called outside any traced request (a batch job, a consumer loop)
// show up. Without it they get no span.
func WithRootSpans() TracerOption { return func(t *Tracer) { t.roots = true } }

// NewTracer returns a Tracer whose spans come from tp.
func NewTracer(tp trace.TracerProvider, opts ...TracerOption) *Tracer {
	t := &Tracer{tracer: tp.Tracer(ScopeName)}
	for _, o := range opts {
		o(t)
	}
	return t
}

// IgnoresExecutions reports true: the Tracer's MarkCommandExecution does nothing
// (hooks.ExecutionIgnorer); it reads the events as MarkEvent tells them.
func (*Tracer) IgnoresExecutions() bool { return true }

// IgnoresEmits reports true: the Tracer's OnExecutionEmit, OnEmit and OnFallbackEmit do
// nothing (hooks.EmitIgnorer).
func (*Tracer) IgnoresEmits() bool { return true }

// traces reports whether an execution whose caller's context is ctx gets a span: its
// span context is sampled, or it has none and the Tracer makes root spans.
func (t *Tracer) traces(ctx context.Context) bool {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return sc.IsSampled()
	}
	return t.roots
}

// Install puts t in front of reg's current execution hook and event notifier
// (hooks.Compose), so your own hooks keep running and see the span in their context.
func (t *Tracer) Install(reg *hooks.Registry) {
	reg.SetExecutionHook(hooks.Compose(t, reg.ExecutionHook()))
	reg.SetEventNotifier(hooks.ComposeNotifiers(t, reg.EventNotifier()))
}

// keyAttributes are the attributes of a command key's spans, made at its first execution
// that records one.
type keyAttributes struct {
	info     hooks.Info
	start    []attribute.KeyValue // hystrix.command, hystrix.group, hystrix.thread_pool
	cacheHit []attribute.KeyValue // and hystrix.events [RESPONSE_FROM_CACHE]
	attempt  string               // the name of its attempt spans
}

// internal is the kind of every span.
var internal = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}

// attributes returns the attributes of info's spans.
func (t *Tracer) attributes(info hooks.Info) *keyAttributes {
	if k, ok := t.keys.Load(info.CommandKey); ok && k.(*keyAttributes).info == info {
		return k.(*keyAttributes)
	}
	start := []attribute.KeyValue{AttrCommand.String(info.CommandKey), AttrGroup.String(info.GroupKey),
		AttrThreadPool.String(info.ThreadPoolKey)}
	k := &keyAttributes{info: info, start: start, attempt: info.CommandKey + " attempt",
		cacheHit: append(slices.Clip(start), AttrEvents.StringSlice([]string{metrics.ResponseFromCache.String()}))}
	t.keys.Store(info.CommandKey, k) // a key whose group differs in another runtime takes turns
	return k
}

// execution is what a traced execution keeps: it is the context OnStart returns, the
// span's context with the execution as its value for executionKey (one allocation).
type execution struct {
	context.Context
	key      string
	attrs    *keyAttributes
	span     trace.Span
	events   atomic.Uint32            // bit per metrics.EventType
	runErr   atomic.Pointer[error]    // the run's error, recorded by OnExecutionError
	failedAt atomic.Int64             // when the first attempt FAILED or TIMED OUT (Unix ns)
	attempts atomic.Pointer[attempts] // the attempt spans, from the first RETRY on
}

type executionKey struct{}

// Value returns the execution for executionKey, and what the span's context holds for
// any other key.
func (x *execution) Value(key any) any {
	if key == (executionKey{}) {
		return x
	}
	return x.Context.Value(key)
}

// traced returns the execution of key traced in ctx, or nil. The key check keeps an
// inner command's calls from landing on the outer command's span when the inner one is
// not traced (a cache hit, or a run started before Install).
func traced(ctx context.Context, key string) *execution {
	x, _ := ctx.Value(executionKey{}).(*execution)
	if x == nil || x.key != key {
		return nil
	}
	return x
}

// OnStart starts the execution's span and returns a context carrying it, if the
// execution gets one (see Tracer); otherwise it returns ctx.
func (t *Tracer) OnStart(ctx context.Context, info hooks.Info) (context.Context, error) {
	if !t.traces(ctx) {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, info.CommandKey, internal...)
	if !span.IsRecording() {
		return ctx, nil // sampled out: the context still carries the trace on
	}
	attrs := t.attributes(info)
	span.SetAttributes(attrs.start...)
	return &execution{Context: ctx, key: info.CommandKey, attrs: attrs, span: span}, nil
}

// MarkEvent adds e to the execution's events; a timeout, a retry and a hedge are also
// span events, and a retry starts an attempt span (attempts.go).
func (t *Tracer) MarkEvent(ctx context.Context, e metrics.EventType, key string) {
	x := traced(ctx, key)
	if x == nil || int(e) >= 32 {
		return
	}
	x.events.Or(1 << e)
	switch e {
	case metrics.Timeout:
		x.span.AddEvent(EventTimeout)
	case metrics.Retry:
		x.span.AddEvent(EventRetry)
		t.retried(x)
		return
	case metrics.Hedge:
		x.span.AddEvent(EventHedge)
	}
	x.attempted(e)
}

// OnExecutionError records the run's error on the span.
func (t *Tracer) OnExecutionError(ctx context.Context, info hooks.Info, err error) {
	if x := traced(ctx, info.CommandKey); x != nil {
		x.runErr.Store(&err)
		x.span.RecordError(err)
		if as := x.attempts.Load(); as != nil {
			as.failed(err)
		}
	}
}

// OnFallbackStart adds the span event "fallback".
func (t *Tracer) OnFallbackStart(ctx context.Context, info hooks.Info) {
	if x := traced(ctx, info.CommandKey); x != nil {
		x.span.AddEvent(EventFallback)
	}
}

// OnFallbackError records the fallback's error on the span.
func (t *Tracer) OnFallbackError(ctx context.Context, info hooks.Info, err error) {
	if x := traced(ctx, info.CommandKey); x != nil {
		x.span.RecordError(err)
	}
}

// OnSuccess ends the span.
func (t *Tracer) OnSuccess(ctx context.Context, info hooks.Info) {
	if x := traced(ctx, info.CommandKey); x != nil {
		x.end(nil)
	}
}

// OnError ends the span with status Error.
func (t *Tracer) OnError(ctx context.Context, info hooks.Info, err error) {
	if x := traced(ctx, info.CommandKey); x != nil {
		x.end(err)
	}
}

// OnUnsubscribe ends the span of an execution whose caller went away (its events say
// CANCELLED).
func (t *Tracer) OnUnsubscribe(ctx context.Context, info hooks.Info) {
	if x := traced(ctx, info.CommandKey); x != nil {
		x.end(nil)
	}
}

// OnCacheHit records a span for the hit, ended at once, if the hit gets one (see Tracer).
func (t *Tracer) OnCacheHit(ctx context.Context, info hooks.Info) {
	if !t.traces(ctx) {
		return
	}
	_, span := t.tracer.Start(ctx, info.CommandKey, internal...)
	if span.IsRecording() {
		span.SetAttributes(t.attributes(info).cacheHit...)
	}
	span.End()
}

func (x *execution) end(err error) {
	if as := x.attempts.Load(); as != nil {
		as.close()
	}
	set := x.events.Load()
	x.span.SetAttributes(eventsOf(set)...)
	if err != nil {
		if ft := failureType(err, set); ft != "" {
			x.span.SetAttributes(AttrFailureType.String(ft))
		}
		if !x.recorded(err) {
			x.span.RecordError(err)
		}
		x.span.SetStatus(codes.Error, err.Error())
	}
	x.span.End()
}

// eventSets holds the hystrix.events attribute of each set of events seen (a bit per
// metrics.EventType -> []attribute.KeyValue of one): the sets executions end with are few
// (SUCCESS; FAILURE, FALLBACK_SUCCESS; ...), so an execution finds its set made already.
var eventSets sync.Map

func eventsOf(set uint32) []attribute.KeyValue {
	if kv, ok := eventSets.Load(set); ok {
		return kv.([]attribute.KeyValue)
	}
	names := make([]string, 0, bits.OnesCount32(set))
	for m := set; m != 0; m &= m - 1 {
		names = append(names, metrics.EventType(bits.TrailingZeros32(m)).String())
	}
	kv, _ := eventSets.LoadOrStore(set, []attribute.KeyValue{AttrEvents.StringSlice(names)})
	return kv.([]attribute.KeyValue)
}

// recorded reports whether err, the command's error, is the run's error that
// OnExecutionError recorded already: the same error, one that wraps it (the command's
// error for a failed run), or one it wraps (a bad request reaches the caller unwrapped).
func (x *execution) recorded(err error) bool {
	p := x.runErr.Load()
	return p != nil && (errors.Is(err, *p) || errors.Is(*p, err))
}

// failureType names why the command failed: the runtime error's failure type, or
// BAD_REQUEST_EXCEPTION for a bad request (which reaches the caller as it is).
func failureType(err error, events uint32) string {
	var ce *command.Error
	switch {
	case errors.As(err, &ce):
		return ce.Type.String()
	case events&(1<<metrics.BadRequest) != 0:
		return command.BadRequestException.String()
	}
	return ""
}
