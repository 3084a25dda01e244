// Package hooktest records the calls a command makes to its execution hook and event
// notifier, for the tests of this module and its integrations (hystrixtest's Recorder is
// built on it). A user's test reads the same through hystrixtest.Recorder.
package hooktest

import (
	"context"
	"sync"

	"github.com/rxhystrix/rxhystrix/hooks"
)

// Call is one hook invocation seen by a RecordingHook. Value is set for the emit methods
// and Err for the error methods.
type Call struct {
	Method string          // the method name, e.g. "OnStart"
	Ctx    context.Context // the context the method got
	Info   hooks.Info
	Value  any
	Err    error
}

// RecordingHook is a hooks.ExecutionHook that records every call in order, for tests that
// check which hooks a command calls and in what order. It is safe for concurrent use. Use
// it by pointer: reg.SetExecutionHook(&rec).
//
// To make a hook fail, embed *RecordingHook in a struct and override the method; call the
// embedded method first if the call should still be recorded.
type RecordingHook struct {
	mu    sync.Mutex
	calls []Call
}

var _ hooks.ExecutionHook = (*RecordingHook)(nil)

// Calls returns a copy of the calls recorded so far, oldest first.
func (r *RecordingHook) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Names returns the method names recorded so far, oldest first.
func (r *RecordingHook) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, len(r.calls))
	for i, c := range r.calls {
		names[i] = c.Method
	}
	return names
}

// Reset forgets every recorded call.
func (r *RecordingHook) Reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
}

func (r *RecordingHook) record(c Call) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

// OnStart records the call and returns ctx.
func (r *RecordingHook) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	r.record(Call{Method: "OnStart", Ctx: ctx, Info: i})
	return ctx, nil
}

// OnThreadStart records the call and returns nil.
func (r *RecordingHook) OnThreadStart(ctx context.Context, i hooks.Info) error {
	r.record(Call{Method: "OnThreadStart", Ctx: ctx, Info: i})
	return nil
}

// OnExecutionStart records the call and returns nil.
func (r *RecordingHook) OnExecutionStart(ctx context.Context, i hooks.Info) error {
	r.record(Call{Method: "OnExecutionStart", Ctx: ctx, Info: i})
	return nil
}

// OnExecutionEmit records the call with its value.
func (r *RecordingHook) OnExecutionEmit(ctx context.Context, i hooks.Info, v any) {
	r.record(Call{Method: "OnExecutionEmit", Ctx: ctx, Info: i, Value: v})
}

// OnEmit records the call with its value.
func (r *RecordingHook) OnEmit(ctx context.Context, i hooks.Info, v any) {
	r.record(Call{Method: "OnEmit", Ctx: ctx, Info: i, Value: v})
}

// OnExecutionSuccess records the call.
func (r *RecordingHook) OnExecutionSuccess(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnExecutionSuccess", Ctx: ctx, Info: i})
}

// OnExecutionError records the call with its error.
func (r *RecordingHook) OnExecutionError(ctx context.Context, i hooks.Info, err error) {
	r.record(Call{Method: "OnExecutionError", Ctx: ctx, Info: i, Err: err})
}

// OnThreadComplete records the call.
func (r *RecordingHook) OnThreadComplete(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnThreadComplete", Ctx: ctx, Info: i})
}

// OnFallbackStart records the call.
func (r *RecordingHook) OnFallbackStart(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnFallbackStart", Ctx: ctx, Info: i})
}

// OnFallbackEmit records the call with its value.
func (r *RecordingHook) OnFallbackEmit(ctx context.Context, i hooks.Info, v any) {
	r.record(Call{Method: "OnFallbackEmit", Ctx: ctx, Info: i, Value: v})
}

// OnFallbackSuccess records the call.
func (r *RecordingHook) OnFallbackSuccess(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnFallbackSuccess", Ctx: ctx, Info: i})
}

// OnFallbackError records the call with its error.
func (r *RecordingHook) OnFallbackError(ctx context.Context, i hooks.Info, err error) {
	r.record(Call{Method: "OnFallbackError", Ctx: ctx, Info: i, Err: err})
}

// OnSuccess records the call.
func (r *RecordingHook) OnSuccess(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnSuccess", Ctx: ctx, Info: i})
}

// OnError records the call with its error.
func (r *RecordingHook) OnError(ctx context.Context, i hooks.Info, err error) {
	r.record(Call{Method: "OnError", Ctx: ctx, Info: i, Err: err})
}

// OnCacheHit records the call.
func (r *RecordingHook) OnCacheHit(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnCacheHit", Ctx: ctx, Info: i})
}

// OnUnsubscribe records the call.
func (r *RecordingHook) OnUnsubscribe(ctx context.Context, i hooks.Info) {
	r.record(Call{Method: "OnUnsubscribe", Ctx: ctx, Info: i})
}
