package hystrixotel

import (
	"math/bits"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// attempts are the attempt spans of an execution that retried: made at its first RETRY,
// with a span for the first attempt after the fact, then one per attempt, each a child of
// the command span and ended when the next one starts or the command ends.
type attempts struct {
	mu     sync.Mutex
	n      int        // the current attempt's number, from 1
	span   trace.Span // the current attempt's span; nil once the command ended
	events uint32     // its events (attemptEvents)
	err    error      // its run's error (OnExecutionError)
	end    time.Time  // when its outcome was marked; zero: not yet
}

const (
	// outcomes are the events that decide an attempt: its span ends when one was marked.
	outcomes = 1<<metrics.Success | 1<<metrics.Failure | 1<<metrics.Timeout | 1<<metrics.BadRequest |
		1<<metrics.ShortCircuited | 1<<metrics.ThreadPoolRejected | 1<<metrics.SemaphoreRejected |
		1<<metrics.RateLimited | 1<<metrics.AdaptiveRejected | 1<<metrics.Throttled |
		1<<metrics.StreamEstablishTimeout | 1<<metrics.Cancelled
	// attemptEvents are the events an attempt span lists: its outcome, RETRY (all but the
	// first) and FAULT_INJECTED; the fallback's and the budget's are the command's.
	attemptEvents = outcomes | 1<<metrics.Retry | 1<<metrics.FaultInjected
	// unsuccessful are the outcomes that give an attempt span status Error.
	unsuccessful = outcomes &^ (1<<metrics.Success | 1<<metrics.Cancelled)
)

// attempted notes e, an event of the current attempt: before the first retry only when
// the first attempt failed or timed out (its end), so an execution that does not retry
// pays an atomic load, and a clock read when it fails.
func (x *execution) attempted(e metrics.EventType) {
	if as := x.attempts.Load(); as != nil {
		as.mark(e)
	} else if e == metrics.Failure || e == metrics.Timeout {
		x.failedAt.Store(time.Now().UnixNano())
	}
}

// retried starts the span of the attempt the RETRY begins, after making the first
// attempt's at the first retry: it starts with the command span and ends when the first
// attempt failed or timed out.
func (t *Tracer) retried(x *execution) {
	as := x.attempts.Load()
	if as == nil {
		as = &attempts{n: 1, events: x.events.Load() & attemptEvents &^ (1 << metrics.Retry)}
		var start time.Time
		if s, ok := x.span.(interface{ StartTime() time.Time }); ok { // the SDK's spans
			start = s.StartTime()
		}
		_, as.span = t.tracer.Start(x.Context, x.attrs.attempt, trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithTimestamp(start))
		if p := x.runErr.Load(); p != nil {
			as.err = *p
		}
		if at := x.failedAt.Load(); at != 0 {
			as.end = time.Unix(0, at)
		}
		x.attempts.Store(as)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	as.finish()
	as.n++
	_, as.span = t.tracer.Start(x.Context, x.attrs.attempt, internal...)
	as.events, as.err, as.end = 1<<metrics.Retry, nil, time.Time{}
}

// mark adds e to the current attempt's events; an outcome is its end.
func (as *attempts) mark(e metrics.EventType) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.events |= 1 << e & attemptEvents
	if 1<<e&outcomes != 0 && as.end.IsZero() {
		as.end = time.Now()
	}
}

// failed records the current attempt's run error (its status description).
func (as *attempts) failed(err error) {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.err = err
}

// close ends the last attempt's span as the command ends.
func (as *attempts) close() {
	as.mu.Lock()
	defer as.mu.Unlock()
	as.finish()
}

// finish ends the current attempt's span with its number, its events and, unless it
// succeeded or was cancelled, status Error (its run's error, or its outcome's name). The
// caller holds mu.
func (as *attempts) finish() {
	s := as.span
	if s == nil {
		return
	}
	as.span = nil
	s.SetAttributes(attemptAttributes(as.n, as.events)...)
	if bad := as.events & unsuccessful; bad != 0 {
		desc := metrics.EventType(bits.TrailingZeros32(bad)).String()
		if as.err != nil {
			desc = as.err.Error()
		}
		s.SetStatus(codes.Error, desc)
	}
	if as.end.IsZero() {
		s.End()
		return
	}
	s.End(trace.WithTimestamp(as.end))
}

// attemptSets holds the attributes of each attempt number and set of events seen (n<<32
// | set -> []attribute.KeyValue): like eventSets, few, so an attempt finds its made.
var attemptSets sync.Map

func attemptAttributes(n int, set uint32) []attribute.KeyValue {
	key := uint64(n)<<32 | uint64(set)
	if kv, ok := attemptSets.Load(key); ok {
		return kv.([]attribute.KeyValue)
	}
	kv, _ := attemptSets.LoadOrStore(key, append([]attribute.KeyValue{AttrAttempt.Int(n)}, eventsOf(set)...))
	return kv.([]attribute.KeyValue)
}
