package main

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/hooks"
)

// hookPanic is the value the soak's hook panics with.
type hookPanic struct{ method string }

// Hook methods by how a panic in them counts: a failing onStart fails the command fast
// (BAD_REQUEST), a failing onThreadStart or onExecutionStart fails the run (FAILURE), a
// panic anywhere else is logged and changes nothing.
var (
	failingHooks = []string{"OnStart", "OnThreadStart", "OnExecutionStart"}
	loggedHooks  = []string{"OnExecutionEmit", "OnEmit", "OnExecutionSuccess", "OnExecutionError",
		"OnThreadComplete", "OnFallbackStart", "OnFallbackEmit", "OnFallbackSuccess", "OnFallbackError",
		"OnSuccess", "OnError", "OnCacheHit", "OnUnsubscribe"}
)

// planKey is the context key of the per-call hostility plan.
type planKey struct{}

// withPanicIn returns ctx telling the soak's hook to panic in method (none when empty).
func withPanicIn(ctx context.Context, method string) context.Context {
	if method == "" {
		return ctx
	}
	return context.WithValue(ctx, planKey{}, method)
}

// panickyHook is an execution hook that panics in the method the execution's context
// names, and counts the panics that should only be logged.
type panickyHook struct {
	hooks.NoopHook
	logged atomic.Int64
}

func (h *panickyHook) maybe(ctx context.Context, method string) {
	if m, _ := ctx.Value(planKey{}).(string); m == method {
		switch method {
		case "OnStart", "OnThreadStart", "OnExecutionStart":
		default:
			h.logged.Add(1)
		}
		panic(hookPanic{method})
	}
}

func (h *panickyHook) OnStart(ctx context.Context, _ hooks.Info) (context.Context, error) {
	h.maybe(ctx, "OnStart")
	return ctx, nil
}

func (h *panickyHook) OnThreadStart(ctx context.Context, _ hooks.Info) error {
	h.maybe(ctx, "OnThreadStart")
	return nil
}

func (h *panickyHook) OnExecutionStart(ctx context.Context, _ hooks.Info) error {
	h.maybe(ctx, "OnExecutionStart")
	return nil
}

func (h *panickyHook) OnExecutionEmit(ctx context.Context, _ hooks.Info, _ any) {
	h.maybe(ctx, "OnExecutionEmit")
}

func (h *panickyHook) OnEmit(ctx context.Context, _ hooks.Info, _ any) { h.maybe(ctx, "OnEmit") }

func (h *panickyHook) OnExecutionSuccess(ctx context.Context, _ hooks.Info) {
	h.maybe(ctx, "OnExecutionSuccess")
}

func (h *panickyHook) OnExecutionError(ctx context.Context, _ hooks.Info, _ error) {
	h.maybe(ctx, "OnExecutionError")
}

func (h *panickyHook) OnThreadComplete(ctx context.Context, _ hooks.Info) {
	h.maybe(ctx, "OnThreadComplete")
}

func (h *panickyHook) OnFallbackStart(ctx context.Context, _ hooks.Info) {
	h.maybe(ctx, "OnFallbackStart")
}

func (h *panickyHook) OnFallbackEmit(ctx context.Context, _ hooks.Info, _ any) {
	h.maybe(ctx, "OnFallbackEmit")
}

func (h *panickyHook) OnFallbackSuccess(ctx context.Context, _ hooks.Info) {
	h.maybe(ctx, "OnFallbackSuccess")
}

func (h *panickyHook) OnFallbackError(ctx context.Context, _ hooks.Info, _ error) {
	h.maybe(ctx, "OnFallbackError")
}

func (h *panickyHook) OnSuccess(ctx context.Context, _ hooks.Info) { h.maybe(ctx, "OnSuccess") }

func (h *panickyHook) OnError(ctx context.Context, _ hooks.Info, _ error) { h.maybe(ctx, "OnError") }

func (h *panickyHook) OnCacheHit(ctx context.Context, _ hooks.Info) { h.maybe(ctx, "OnCacheHit") }

func (h *panickyHook) OnUnsubscribe(ctx context.Context, _ hooks.Info) {
	h.maybe(ctx, "OnUnsubscribe")
}

// logCounter is the runtime's slog handler: it counts records by level and message and
// keeps the first of each message, and writes nothing (the hook's panics alone would
// flood the output).
type logCounter struct {
	mu    sync.Mutex
	count map[string]int64
	first map[string]slog.Record
}

func newLogCounter() *logCounter {
	return &logCounter{count: map[string]int64{}, first: map[string]slog.Record{}}
}

func (l *logCounter) Enabled(context.Context, slog.Level) bool { return true }

func (l *logCounter) Handle(_ context.Context, r slog.Record) error {
	k := r.Level.String() + " " + r.Message
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count[k]++; l.count[k] == 1 {
		l.first[k] = r.Clone()
	}
	return nil
}

func (l *logCounter) WithAttrs([]slog.Attr) slog.Handler { return l }

func (l *logCounter) WithGroup(string) slog.Handler { return l }

// messages returns the counted "LEVEL message" keys, sorted, with their counts.
func (l *logCounter) messages() ([]string, map[string]int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	keys := make([]string, 0, len(l.count))
	counts := make(map[string]int64, len(l.count))
	for k, n := range l.count {
		keys = append(keys, k)
		counts[k] = n
	}
	sort.Strings(keys)
	return keys, counts
}
