package hystrixotel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/hooks"
)

// scenario is one way a command can end, with the span it must leave.
type scenario struct {
	key         string
	props       []string
	run         func(e *env) func(context.Context) (string, error)
	fallback    bool
	fallbackErr error // with fallback: what it fails with
	events      []string
	spanEvents  []string
	exceptions  []string // the messages of the "exception" span events, in order
	failureType string   // "" for a command that succeeded (status Unset)
	losers      int64    // attempts a hedge cancelled: CANCELLED completions of their own
}

var errCacheDown = errors.New("cache down")

var scenarios = []scenario{
	{key: "Success", run: returns("v", nil),
		events: []string{"SUCCESS"}},
	{key: "FailureWithFallback", run: returns("", errDown), fallback: true,
		events: []string{"FAILURE", "FALLBACK_SUCCESS"}, spanEvents: []string{"exception", EventFallback},
		exceptions: []string{"dependency down"}},
	{key: "FailureWithoutFallback", run: returns("", errDown),
		events:      []string{"FAILURE", "FALLBACK_MISSING"},
		spanEvents:  []string{"exception"}, // the run's error, which the command's wraps
		exceptions:  []string{"dependency down"},
		failureType: "COMMAND_EXCEPTION"},
	{key: "FailureWithFailingFallback", run: returns("", errDown), fallback: true, fallbackErr: errCacheDown,
		events:      []string{"FAILURE", "FALLBACK_FAILURE"},
		spanEvents:  []string{"exception", EventFallback, "exception"},
		exceptions:  []string{"dependency down", "cache down"},
		failureType: "COMMAND_EXCEPTION"},
	{key: "TimeoutWithFallback", props: []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
		run: takes(100 * time.Millisecond), fallback: true,
		events: []string{"TIMEOUT", "FALLBACK_SUCCESS"}, spanEvents: []string{EventTimeout, EventFallback}},
	{key: "TimeoutWithoutFallback", props: []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
		run:         takes(100 * time.Millisecond),
		events:      []string{"TIMEOUT", "FALLBACK_MISSING"},
		spanEvents:  []string{EventTimeout, "exception"},
		exceptions:  []string{"TimeoutWithoutFallback timed-out and no fallback available"},
		failureType: "TIMEOUT"},
	{key: "TimeoutWithFailingFallback", props: []string{"execution.isolation.thread.timeoutInMilliseconds", "100"},
		run: takes(100 * time.Millisecond), fallback: true, fallbackErr: errCacheDown,
		events:     []string{"TIMEOUT", "FALLBACK_FAILURE"},
		spanEvents: []string{EventTimeout, EventFallback, "exception", "exception"},
		exceptions: []string{"cache down",
			"TimeoutWithFailingFallback timed-out and fallback failed: cache down"},
		failureType: "TIMEOUT"},
	{key: "ShortCircuitWithFallback", props: []string{"circuitBreaker.forceOpen", "true"},
		run: returns("never", nil), fallback: true,
		events: []string{"SHORT_CIRCUITED", "FALLBACK_SUCCESS"}, spanEvents: []string{EventFallback}},
	{key: "ShortCircuitWithoutFallback", props: []string{"circuitBreaker.forceOpen", "true"},
		run:         returns("never", nil),
		events:      []string{"SHORT_CIRCUITED", "FALLBACK_MISSING"},
		spanEvents:  []string{"exception"},
		exceptions:  []string{"ShortCircuitWithoutFallback short-circuited and no fallback available"},
		failureType: "SHORTCIRCUIT"},
	{key: "RetriedOnce", props: []string{"retry.maxAttempts", "2", "retry.backoffInMilliseconds", "0"},
		run:    failsOnce,
		events: []string{"SUCCESS", "FAILURE", "RETRY"}, spanEvents: []string{"exception", EventRetry},
		exceptions: []string{"dependency down"}},
	{key: "Hedged", props: []string{"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "10"},
		run:    slowFirst,
		events: []string{"SUCCESS", "HEDGE"}, spanEvents: []string{EventHedge}, losers: 1},
	{key: "BadRequest", run: returns("", command.BadRequest(errors.New("no such id"))), fallback: true,
		events:      []string{"BAD_REQUEST"},
		spanEvents:  []string{"exception"}, // the run's error, which the caller gets unwrapped
		exceptions:  []string{"no such id"},
		failureType: "BAD_REQUEST_EXCEPTION"},
}

func returns(v string, err error) func(*env) func(context.Context) (string, error) {
	return func(*env) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return v, err }
	}
}

// failsOnce returns a run that fails its first call and answers the next.
func failsOnce(*env) func(context.Context) (string, error) {
	first := true
	return func(context.Context) (string, error) {
		if first {
			first = false
			return "", errDown
		}
		return "v", nil
	}
}

// slowFirst returns a run whose first call lets the hedge delay pass on the fake clock and
// waits for its context (the hedge wins and cancels it); the next answers.
func slowFirst(e *env) func(context.Context) (string, error) {
	var first atomic.Bool
	return func(ctx context.Context) (string, error) {
		if first.CompareAndSwap(false, true) {
			e.clk.Advance(10 * time.Millisecond)
			<-ctx.Done()
			return "", ctx.Err()
		}
		return "v", nil
	}
}

// takes returns a run that takes d on the fake clock and then reports its context's error.
func takes(d time.Duration) func(*env) func(context.Context) (string, error) {
	return func(e *env) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) {
			e.clk.Advance(d)
			return "late", ctx.Err()
		}
	}
}

func (sc scenario) execute(e *env, ctx context.Context) (string, error) {
	cmd := command.New(e.setter(sc.key, sc.props...), sc.run(e))
	if sc.fallback {
		cmd = cmd.WithFallback(func(context.Context, error) (string, error) { return "fallback", sc.fallbackErr })
	}
	return cmd.Execute(ctx)
}

func TestASpanPerExecutionAsAChildOfTheCallersSpan(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.key, func(t *testing.T) {
			e := newEnv(t)
			var err error
			caller := e.inCallerSpan(t.Context(), func(ctx context.Context) { _, err = sc.execute(e, ctx) })
			assert.Equal(t, sc.failureType != "", err != nil, "error: %v", err)

			s := e.span(sc.key)
			assert.Equal(t, caller.TraceID(), s.SpanContext.TraceID())
			assert.Equal(t, caller.SpanID(), s.Parent.SpanID(), "a child of the caller's span")
			assert.Equal(t, trace.SpanKindInternal, s.SpanKind)
			want := []attribute.KeyValue{
				AttrCommand.String(sc.key), AttrGroup.String("Shop"), AttrThreadPool.String("Shop"),
				AttrEvents.StringSlice(sc.events),
			}
			if sc.failureType != "" {
				want = append(want, AttrFailureType.String(sc.failureType))
			}
			assert.ElementsMatch(t, want, s.Attributes)

			var names, exceptions []string
			for _, ev := range s.Events {
				names = append(names, ev.Name)
				for _, a := range ev.Attributes {
					if a.Key == semconv.ExceptionMessageKey {
						exceptions = append(exceptions, a.Value.AsString())
					}
				}
			}
			assert.Equal(t, sc.spanEvents, names, "span events")
			assert.Equal(t, sc.exceptions, exceptions, "one exception event per error")
			if sc.failureType == "" {
				assert.Equal(t, sdktrace.Status{Code: codes.Unset}, s.Status)
			} else {
				assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: err.Error()}, s.Status)
			}
		})
	}
}

func TestRunsOutgoingCallsAreChildrenOfTheCommandSpan(t *testing.T) {
	for _, isolation := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(isolation, func(t *testing.T) {
			e := newEnv(t)
			caller := e.inCallerSpan(t.Context(), func(ctx context.Context) {
				_, err := command.New(e.setter("Call", "execution.isolation.strategy", isolation), e.callsOut).Execute(ctx)
				require.NoError(t, err)
			})
			cmd, call := e.span("Call"), e.span("GET /stock")
			assert.Equal(t, cmd.SpanContext.SpanID(), call.Parent.SpanID())
			assert.Equal(t, caller.SpanID(), cmd.Parent.SpanID())
		})
	}
}

// callsOut is a run that makes an outgoing call, a span of its own.
func (e *env) callsOut(ctx context.Context) (string, error) {
	_, span := e.tp.Tracer("http").Start(ctx, "GET /stock")
	span.End()
	return "ok", nil
}

// Outside any trace an execution gets no span, its run no parent; with WithRootSpans it
// starts a trace of its own, the parent of its run's calls. The same holds for a cache hit.
func TestOutsideATraceASpanOnlyWithRootSpans(t *testing.T) {
	for _, roots := range []bool{false, true} {
		t.Run(fmt.Sprint("roots=", roots), func(t *testing.T) {
			var opts []TracerOption
			if roots {
				opts = append(opts, WithRootSpans())
			}
			e := newEnv(t, opts...)
			ctx, rc := cache.NewRequestContext(t.Context())
			defer rc.Close()
			for range 2 {
				_, err := command.New(e.setter("Call"), e.callsOut).WithCacheKey("1").Execute(ctx)
				require.NoError(t, err)
			}
			call := e.span("GET /stock")
			if !roots {
				assert.False(t, call.Parent.IsValid(), "the run's call has no command span for parent")
				assert.Len(t, e.spans.GetSpans(), 1, "the run's call alone")
				assert.Equal(t, []string{"OnStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit",
					"OnExecutionSuccess", "OnSuccess", "OnCacheHit"}, e.rec.Names(), "the hooks after the Tracer see it all")
				assert.Equal(t, ctx, e.rec.Calls()[0].Ctx, "the caller's context goes on")
				return
			}
			var cmds []tracetest.SpanStub
			for _, s := range e.spans.GetSpans() {
				if s.Name == "Call" {
					cmds = append(cmds, s)
				}
			}
			require.Len(t, cmds, 2, "the execution and the cache hit")
			assert.False(t, cmds[0].Parent.IsValid(), "no caller span: the command's span is a root")
			assert.Equal(t, cmds[0].SpanContext.SpanID(), call.Parent.SpanID())
			assert.Contains(t, cmds[1].Attributes, AttrEvents.StringSlice([]string{"RESPONSE_FROM_CACHE"}))
		})
	}
}

type callerKey struct{}

func TestHooksSeeTheCallersContextValuesAndTheSpan(t *testing.T) {
	e := newEnv(t)
	e.inCallerSpan(context.WithValue(t.Context(), callerKey{}, "request-42"), func(ctx context.Context) {
		_, err := command.New(e.setter("Ctx", "execution.isolation.strategy", "THREAD"),
			returns("", errDown)(e)).
			WithFallback(func(context.Context, error) (string, error) { return "fb", nil }).
			Execute(ctx)
		require.NoError(t, err)
	})

	span := e.span("Ctx").SpanContext
	calls := e.rec.Calls()
	require.Equal(t, []string{"OnStart", "OnThreadStart", "OnExecutionStart", "OnExecutionError",
		"OnThreadComplete", "OnFallbackStart", "OnFallbackEmit", "OnEmit", "OnFallbackSuccess", "OnSuccess"},
		e.rec.Names())
	for _, c := range calls {
		assert.Equal(t, "request-42", c.Ctx.Value(callerKey{}), c.Method)
		assert.Equal(t, span, trace.SpanContextFromContext(c.Ctx), "%s runs in the command's span", c.Method)
	}
}

func TestACacheHitIsASpanOfItsOwn(t *testing.T) {
	e := newEnv(t)
	ctx, rc := cache.NewRequestContext(t.Context())
	defer rc.Close()
	caller := e.inCallerSpan(ctx, func(ctx context.Context) {
		for range 2 {
			_, err := command.New(e.setter("Cached"), returns("v", nil)(e)).WithCacheKey("1").Execute(ctx)
			require.NoError(t, err)
		}
	})
	var spans []tracetest.SpanStub
	for _, s := range e.spans.GetSpans() {
		if s.Name == "Cached" {
			spans = append(spans, s)
		}
	}
	require.Len(t, spans, 2)
	for _, s := range spans {
		assert.Equal(t, caller.SpanID(), s.Parent.SpanID())
	}
	assert.Contains(t, spans[0].Attributes, AttrEvents.StringSlice([]string{"SUCCESS"}))
	assert.Contains(t, spans[1].Attributes, AttrEvents.StringSlice([]string{"RESPONSE_FROM_CACHE"}))
}

func TestANestedCommandGetsItsOwnSpan(t *testing.T) {
	e := newEnv(t)
	e.inCallerSpan(t.Context(), func(ctx context.Context) {
		_, err := command.New(e.setter("Outer"), func(ctx context.Context) (string, error) {
			return command.New(e.setter("Inner"), returns("", errDown)(e)).
				WithFallback(func(context.Context, error) (string, error) { return "fb", nil }).Execute(ctx)
		}).Execute(ctx)
		require.NoError(t, err)
	})
	outer, inner := e.span("Outer"), e.span("Inner")
	assert.Equal(t, outer.SpanContext.SpanID(), inner.Parent.SpanID())
	assert.Contains(t, outer.Attributes, AttrEvents.StringSlice([]string{"SUCCESS"}), "the inner events stay on the inner span")
	assert.Contains(t, inner.Attributes, AttrEvents.StringSlice([]string{"FAILURE", "FALLBACK_SUCCESS"}))
}

// Inside a trace that is not sampled an execution gets no span: the caller's context goes
// on as it is and carries the trace. Inside one that is, a span the Tracer's sampler drops
// carries it on too, and the Tracer keeps nothing for it.
func TestSampledOutExecutionsCarryTheTraceOn(t *testing.T) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	tr := NewTracer(tp, WithRootSpans())
	for _, sampled := range []bool{false, true} {
		t.Run(fmt.Sprint("parent sampled=", sampled), func(t *testing.T) {
			parent := remoteParent(t.Context(), sampled)
			ctx, err := tr.OnStart(parent, hooks.Info{CommandKey: "K"})
			require.NoError(t, err)
			sc := trace.SpanContextFromContext(ctx)
			assert.Equal(t, trace.SpanContextFromContext(parent).TraceID(), sc.TraceID(), "run's calls still join the trace")
			assert.False(t, sc.IsSampled())
			assert.Nil(t, traced(ctx, "K"), "nothing kept for a span that records nothing")
			if !sampled {
				assert.Equal(t, parent, ctx, "no span started: the caller's context")
			}
		})
	}
}

func TestSpansCarryTheKeysOfTheirRuntime(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	tr := NewTracer(tp, WithRootSpans())
	for _, group := range []string{"A", "B", "A"} { // one command key in runtimes that group it apart
		info := hooks.Info{CommandKey: "K", GroupKey: group, ThreadPoolKey: group + "Pool"}
		ctx, err := tr.OnStart(t.Context(), info)
		require.NoError(t, err)
		tr.OnSuccess(ctx, info)
	}
	var got []attribute.Set
	for _, s := range spans.GetSpans() {
		got = append(got, attribute.NewSet(s.Attributes...))
	}
	want := func(group string) attribute.Set {
		return attribute.NewSet(AttrCommand.String("K"), AttrGroup.String(group), AttrThreadPool.String(group+"Pool"),
			AttrEvents.StringSlice([]string{}))
	}
	assert.Equal(t, []attribute.Set{want("A"), want("B"), want("A")}, got)
}

// samplerSpy samples every span and records what it was shown.
type samplerSpy struct{ seen []sdktrace.SamplingParameters }

func (s *samplerSpy) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	s.seen = append(s.seen, p)
	return sdktrace.AlwaysSample().ShouldSample(p)
}

func (s *samplerSpy) Description() string { return "spy" }

func TestASamplerSeesTheCommandKeyAsTheSpanName(t *testing.T) {
	spy := &samplerSpy{}
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(spy), sdktrace.WithSyncer(spans))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	info := hooks.Info{CommandKey: "K", GroupKey: "G", ThreadPoolKey: "P"}
	tr := NewTracer(tp, WithRootSpans())
	ctx, err := tr.OnStart(t.Context(), info)
	require.NoError(t, err)
	tr.OnSuccess(ctx, info)

	require.Len(t, spy.seen, 1)
	assert.Equal(t, "K", spy.seen[0].Name)
	assert.Equal(t, trace.SpanKindInternal, spy.seen[0].Kind)
	assert.Empty(t, spy.seen[0].Attributes, "set once the span records: a sampled-out execution pays nothing for them")
	require.Len(t, spans.GetSpans(), 1)
	assert.Contains(t, spans.GetSpans()[0].Attributes, AttrGroup.String("G"))
}
