package hystrixotel

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/rxhystrix/rxhystrix/command"
)

// attemptSpans returns the exported attempt spans of key, in the order they ended.
func (e *env) attemptSpans(key string) []tracetest.SpanStub {
	var found []tracetest.SpanStub
	for _, s := range e.spans.GetSpans() {
		if s.Name == key+" attempt" {
			found = append(found, s)
		}
	}
	return found
}

// A command that fails twice and then answers shows its three attempts as siblings under
// the command span, each with its number, its events, its status and its own time.
func TestEachAttemptOfARetriedCommandIsAChildSpan(t *testing.T) {
	for _, isolation := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(isolation, func(t *testing.T) { attemptsAreChildSpans(t, isolation) })
	}
}

func attemptsAreChildSpans(t *testing.T, isolation string) {
	e := newEnv(t)
	calls := 0
	e.inCallerSpan(t.Context(), func(ctx context.Context) {
		v, err := command.New(e.setter("Flaky", "retry.maxAttempts", "3", "retry.backoffInMilliseconds", "0",
			"execution.isolation.strategy", isolation),
			func(context.Context) (string, error) {
				if calls++; calls < 3 {
					return "", fmt.Errorf("call %d: %w", calls, errDown)
				}
				return "v", nil
			}).Execute(ctx)
		require.NoError(t, err)
		assert.Equal(t, "v", v)
	})

	cmd := e.span("Flaky")
	assert.Equal(t, sdktrace.Status{Code: codes.Unset}, cmd.Status)
	attempts := e.attemptSpans("Flaky")
	require.Len(t, attempts, 3)
	want := []struct {
		events []string
		status sdktrace.Status
	}{
		{[]string{"FAILURE"}, sdktrace.Status{Code: codes.Error, Description: "call 1: dependency down"}},
		{[]string{"FAILURE", "RETRY"}, sdktrace.Status{Code: codes.Error, Description: "call 2: dependency down"}},
		{[]string{"SUCCESS", "RETRY"}, sdktrace.Status{Code: codes.Unset}},
	}
	for i, s := range attempts {
		assert.Equal(t, cmd.SpanContext.SpanID(), s.Parent.SpanID(), "attempt %d is a child of the command span", i+1)
		assert.Equal(t, cmd.SpanContext.TraceID(), s.SpanContext.TraceID())
		assert.ElementsMatch(t, []attribute.KeyValue{AttrAttempt.Int(i + 1), AttrEvents.StringSlice(want[i].events)},
			s.Attributes, "attempt %d", i+1)
		assert.Equal(t, want[i].status, s.Status, "attempt %d", i+1)
		assert.False(t, s.StartTime.After(s.EndTime), "attempt %d", i+1)
		assert.False(t, s.StartTime.Before(cmd.StartTime), "attempt %d within the command span", i+1)
		assert.False(t, s.EndTime.After(cmd.EndTime), "attempt %d within the command span", i+1)
		if i > 0 {
			assert.False(t, s.StartTime.Before(attempts[i-1].EndTime), "attempt %d after attempt %d", i+1, i)
		}
	}
	assert.Equal(t, cmd.StartTime, attempts[0].StartTime, "the first attempt starts with the command")
}

// A timed-out attempt retried (retry.onTimeout) is a span with status Error TIMEOUT; the
// budget's and the fallback's events stay the command's.
func TestARetriedTimeoutIsAnAttemptSpan(t *testing.T) {
	e := newEnv(t)
	e.inCallerSpan(t.Context(), func(ctx context.Context) {
		_, err := command.New(e.setter("Slow", "retry.maxAttempts", "2", "retry.backoffInMilliseconds", "0",
			"retry.onTimeout", "true", "retry.timeoutPerAttempt", "true",
			"execution.isolation.thread.timeoutInMilliseconds", "100"), takes(100*time.Millisecond)(e)).
			WithFallback(func(context.Context, error) (string, error) { return "fallback", nil }).
			Execute(ctx)
		require.NoError(t, err)
	})

	attempts := e.attemptSpans("Slow")
	require.Len(t, attempts, 2)
	for i, events := range [][]string{{"TIMEOUT"}, {"TIMEOUT", "RETRY"}} {
		assert.ElementsMatch(t, []attribute.KeyValue{AttrAttempt.Int(i + 1), AttrEvents.StringSlice(events)},
			attempts[i].Attributes)
		assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "TIMEOUT"}, attempts[i].Status)
	}
}

// Without a retry the span shape is what it was: the command span alone, no attempt span.
func TestAnExecutionWithoutRetryHasNoAttemptSpan(t *testing.T) {
	for _, sc := range scenarios {
		if sc.key == "RetriedOnce" {
			continue
		}
		t.Run(sc.key, func(t *testing.T) {
			e := newEnv(t)
			e.inCallerSpan(t.Context(), func(ctx context.Context) { _, _ = sc.execute(e, ctx) })
			var names []string
			for _, s := range e.spans.GetSpans() {
				names = append(names, s.Name)
			}
			assert.ElementsMatch(t, []string{sc.key, "caller"}, names)
		})
	}
}
