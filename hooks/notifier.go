package hooks

import (
	"context"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// EventNotifier is told about every event a command records and about every finished
// execution, e.g. to feed an external metrics system. Implementations must be safe for
// concurrent use and fast: they are called on the command's goroutine, with the
// execution's context (the one ExecutionHook.OnStart returned, or the caller's).
type EventNotifier interface {
	// MarkEvent is called for each event recorded for command key.
	MarkEvent(ctx context.Context, e metrics.EventType, key string)
	// MarkCommandExecution is called once per execution that ran, with its isolation, run
	// duration and events in order. events is only valid during the call and must not be
	// modified (executions with the same events share it): copy it to keep it.
	MarkCommandExecution(ctx context.Context, key string, isolation config.IsolationStrategy, d time.Duration, events []metrics.EventType)
}

// ExecutionIgnorer is implemented by an EventNotifier whose MarkCommandExecution does
// nothing (one that reads the events as MarkEvent tells them, a tracing notifier). A
// command does not call it on such a notifier, so it spends neither the call nor the
// lookup of the execution's event list.
type ExecutionIgnorer interface {
	EventNotifier
	// IgnoresExecutions reports whether MarkCommandExecution can be left out (true), or
	// must be called all the same.
	IgnoresExecutions() bool
}

// IgnoresExecutions reports whether n's MarkCommandExecution can be left out
// (ExecutionIgnorer). An IgnoresExecutions that panics counts as false.
func IgnoresExecutions(n EventNotifier) (ignores bool) {
	e, ok := n.(ExecutionIgnorer)
	if !ok {
		return false
	}
	defer func() {
		if recover() != nil {
			ignores = false
		}
	}()
	return e.IgnoresExecutions()
}

// NoopNotifier is an EventNotifier that does nothing. Embed it to override one method.
type NoopNotifier struct{}

var _ EventNotifier = NoopNotifier{}

// MarkEvent does nothing.
func (NoopNotifier) MarkEvent(context.Context, metrics.EventType, string) {}

// MarkCommandExecution does nothing.
func (NoopNotifier) MarkCommandExecution(context.Context, string, config.IsolationStrategy, time.Duration, []metrics.EventType) {
}

// IsNoopNotifier reports whether n is the no-op notifier (NoopNotifier or *NoopNotifier),
// so a caller can skip building the arguments. Like IsNoop, it is a type check.
func IsNoopNotifier(n EventNotifier) bool {
	switch n.(type) {
	case NoopNotifier, *NoopNotifier:
		return true
	}
	return false
}

// notifierBox lets an EventNotifier live behind an atomic pointer.
type notifierBox struct{ n EventNotifier }

// SetEventNotifier installs n for all later calls. A nil n restores the no-op notifier.
func (r *Registry) SetEventNotifier(n EventNotifier) {
	if n == nil {
		r.notifier.Store(nil)
		return
	}
	r.notifier.Store(&notifierBox{n: n})
}

// EventNotifier returns the installed notifier, NoopNotifier{} when none is.
func (r *Registry) EventNotifier() EventNotifier {
	if b := r.notifier.Load(); b != nil {
		return b.n
	}
	return NoopNotifier{}
}
