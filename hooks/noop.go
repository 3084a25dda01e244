package hooks

import "context"

// NoopHook is an ExecutionHook that does nothing. Embed it in a struct to override only
// some methods. The registry reports the plain NoopHook as a no-op (see IsNoop); a struct
// that embeds it is a real hook.
type NoopHook struct{}

var _ ExecutionHook = NoopHook{}

// OnStart returns ctx.
func (NoopHook) OnStart(ctx context.Context, _ Info) (context.Context, error) { return ctx, nil }

// OnThreadStart does nothing.
func (NoopHook) OnThreadStart(context.Context, Info) error { return nil }

// OnExecutionStart does nothing.
func (NoopHook) OnExecutionStart(context.Context, Info) error { return nil }

// OnExecutionEmit does nothing.
func (NoopHook) OnExecutionEmit(context.Context, Info, any) {}

// OnEmit does nothing.
func (NoopHook) OnEmit(context.Context, Info, any) {}

// OnExecutionSuccess does nothing.
func (NoopHook) OnExecutionSuccess(context.Context, Info) {}

// OnExecutionError does nothing.
func (NoopHook) OnExecutionError(context.Context, Info, error) {}

// OnThreadComplete does nothing.
func (NoopHook) OnThreadComplete(context.Context, Info) {}

// OnFallbackStart does nothing.
func (NoopHook) OnFallbackStart(context.Context, Info) {}

// OnFallbackEmit does nothing.
func (NoopHook) OnFallbackEmit(context.Context, Info, any) {}

// OnFallbackSuccess does nothing.
func (NoopHook) OnFallbackSuccess(context.Context, Info) {}

// OnFallbackError does nothing.
func (NoopHook) OnFallbackError(context.Context, Info, error) {}

// OnSuccess does nothing.
func (NoopHook) OnSuccess(context.Context, Info) {}

// OnError does nothing.
func (NoopHook) OnError(context.Context, Info, error) {}

// OnCacheHit does nothing.
func (NoopHook) OnCacheHit(context.Context, Info) {}

// OnUnsubscribe does nothing.
func (NoopHook) OnUnsubscribe(context.Context, Info) {}

// IsNoop reports whether h is the no-op hook (NoopHook or *NoopHook), so a caller can skip
// the work of preparing hook arguments, such as boxing values into any. It is a type
// check: no allocation, no atomic load. Check the hook you loaded, not the registry, so
// the answer matches the hook you will call even if the registry changes meanwhile.
func IsNoop(h ExecutionHook) bool {
	switch h.(type) {
	case NoopHook, *NoopHook:
		return true
	}
	return false
}
