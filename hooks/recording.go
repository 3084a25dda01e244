package hooks

import "sync"

// Call is one hook invocation seen by a RecordingHook. Value is set for the emit methods
// and Err for the error methods.
type Call struct {
	Method string // the method name, e.g. "OnStart"
	Info   Info
	Value  any
	Err    error
}

// RecordingHook is an ExecutionHook that records every call in order. It is meant for
// tests (yours and ours) that check which hooks a command calls and in what order. It is
// safe for concurrent use. Use it by pointer: hooks.Default().SetExecutionHook(&rec).
//
// To make a hook fail, embed *RecordingHook in a struct and override the method; call the
// embedded method first if the call should still be recorded.
type RecordingHook struct {
	mu    sync.Mutex
	calls []Call
}

var _ ExecutionHook = (*RecordingHook)(nil)

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

// OnStart records the call and returns nil.
func (r *RecordingHook) OnStart(i Info) error {
	r.record(Call{Method: "OnStart", Info: i})
	return nil
}

// OnThreadStart records the call and returns nil.
func (r *RecordingHook) OnThreadStart(i Info) error {
	r.record(Call{Method: "OnThreadStart", Info: i})
	return nil
}

// OnExecutionStart records the call and returns nil.
func (r *RecordingHook) OnExecutionStart(i Info) error {
	r.record(Call{Method: "OnExecutionStart", Info: i})
	return nil
}

// OnExecutionEmit records the call with its value.
func (r *RecordingHook) OnExecutionEmit(i Info, v any) {
	r.record(Call{Method: "OnExecutionEmit", Info: i, Value: v})
}

// OnEmit records the call with its value.
func (r *RecordingHook) OnEmit(i Info, v any) { r.record(Call{Method: "OnEmit", Info: i, Value: v}) }

// OnExecutionSuccess records the call.
func (r *RecordingHook) OnExecutionSuccess(i Info) {
	r.record(Call{Method: "OnExecutionSuccess", Info: i})
}

// OnExecutionError records the call with its error.
func (r *RecordingHook) OnExecutionError(i Info, err error) {
	r.record(Call{Method: "OnExecutionError", Info: i, Err: err})
}

// OnThreadComplete records the call.
func (r *RecordingHook) OnThreadComplete(i Info) {
	r.record(Call{Method: "OnThreadComplete", Info: i})
}

// OnFallbackStart records the call.
func (r *RecordingHook) OnFallbackStart(i Info) { r.record(Call{Method: "OnFallbackStart", Info: i}) }

// OnFallbackEmit records the call with its value.
func (r *RecordingHook) OnFallbackEmit(i Info, v any) {
	r.record(Call{Method: "OnFallbackEmit", Info: i, Value: v})
}

// OnFallbackSuccess records the call.
func (r *RecordingHook) OnFallbackSuccess(i Info) {
	r.record(Call{Method: "OnFallbackSuccess", Info: i})
}

// OnFallbackError records the call with its error.
func (r *RecordingHook) OnFallbackError(i Info, err error) {
	r.record(Call{Method: "OnFallbackError", Info: i, Err: err})
}

// OnSuccess records the call.
func (r *RecordingHook) OnSuccess(i Info) { r.record(Call{Method: "OnSuccess", Info: i}) }

// OnError records the call with its error.
func (r *RecordingHook) OnError(i Info, err error) {
	r.record(Call{Method: "OnError", Info: i, Err: err})
}

// OnCacheHit records the call.
func (r *RecordingHook) OnCacheHit(i Info) { r.record(Call{Method: "OnCacheHit", Info: i}) }

// OnUnsubscribe records the call.
func (r *RecordingHook) OnUnsubscribe(i Info) { r.record(Call{Method: "OnUnsubscribe", Info: i}) }
