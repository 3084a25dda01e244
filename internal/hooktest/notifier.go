package hooktest

import (
	"context"
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Mark is one MarkEvent call seen by a RecordingNotifier.
type Mark struct {
	Event metrics.EventType
	Key   string
}

// Execution is one MarkCommandExecution call seen by a RecordingNotifier.
type Execution struct {
	Key       string
	Isolation config.IsolationStrategy
	Duration  time.Duration
	Events    []metrics.EventType
}

// RecordingNotifier is a hooks.EventNotifier that records every call, for tests. It is safe
// for concurrent use; use it by pointer.
type RecordingNotifier struct {
	mu         sync.Mutex
	marks      []Mark
	executions []Execution
}

var _ hooks.EventNotifier = (*RecordingNotifier)(nil)

// MarkEvent records the call.
func (r *RecordingNotifier) MarkEvent(_ context.Context, e metrics.EventType, key string) {
	r.mu.Lock()
	r.marks = append(r.marks, Mark{Event: e, Key: key})
	r.mu.Unlock()
}

// MarkCommandExecution records the call with a copy of events.
func (r *RecordingNotifier) MarkCommandExecution(_ context.Context, key string, isolation config.IsolationStrategy, d time.Duration, events []metrics.EventType) {
	x := Execution{Key: key, Isolation: isolation, Duration: d, Events: append([]metrics.EventType(nil), events...)}
	r.mu.Lock()
	r.executions = append(r.executions, x)
	r.mu.Unlock()
}

// Marks returns the MarkEvent calls so far, oldest first.
func (r *RecordingNotifier) Marks() []Mark {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Mark(nil), r.marks...)
}

// Executions returns the executions marked so far, oldest first.
func (r *RecordingNotifier) Executions() []Execution {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Execution(nil), r.executions...)
}
