package hooks

import "sync/atomic"

// Registry holds the execution hook and the event notifier that commands call. Both can be
// replaced at any time, concurrently with running commands; a command sees either the old
// or the new plugin, never a mix within one call. The zero value is ready to use and
// holds the no-op plugins.
//
// Reading is one atomic load and allocates nothing, so commands read the registry on every
// execution.
type Registry struct {
	hook     atomic.Pointer[hookBox]
	notifier atomic.Pointer[notifierBox]
}

// hookBox lets an interface value live behind an atomic pointer.
type hookBox struct{ h ExecutionHook }

var defaultRegistry Registry

// NewRegistry returns a registry holding the no-op plugins.
func NewRegistry() *Registry { return &Registry{} }

// Default returns the process-wide registry used by commands that are not given one.
func Default() *Registry { return &defaultRegistry }

// SetExecutionHook installs h for all later calls. A nil h restores the no-op hook.
func (r *Registry) SetExecutionHook(h ExecutionHook) {
	if h == nil {
		r.hook.Store(nil)
		return
	}
	r.hook.Store(&hookBox{h: h})
}

// ExecutionHook returns the installed hook, NoopHook{} when none is. Load it once per
// execution and call IsNoop on the result to skip preparing arguments for a no-op hook.
func (r *Registry) ExecutionHook() ExecutionHook {
	if b := r.hook.Load(); b != nil {
		return b.h
	}
	return NoopHook{}
}
