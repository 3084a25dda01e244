package hooks

// NoopHook is an ExecutionHook that does nothing. Embed it in a struct to override only
// some methods. The registry reports the plain NoopHook as a no-op (see IsNoop); a struct
// that embeds it is a real hook.
type NoopHook struct{}

var _ ExecutionHook = NoopHook{}

// OnStart does nothing.
func (NoopHook) OnStart(Info) error { return nil }

// OnThreadStart does nothing.
func (NoopHook) OnThreadStart(Info) error { return nil }

// OnExecutionStart does nothing.
func (NoopHook) OnExecutionStart(Info) error { return nil }

// OnExecutionEmit does nothing.
func (NoopHook) OnExecutionEmit(Info, any) {}

// OnEmit does nothing.
func (NoopHook) OnEmit(Info, any) {}

// OnExecutionSuccess does nothing.
func (NoopHook) OnExecutionSuccess(Info) {}

// OnExecutionError does nothing.
func (NoopHook) OnExecutionError(Info, error) {}

// OnThreadComplete does nothing.
func (NoopHook) OnThreadComplete(Info) {}

// OnFallbackStart does nothing.
func (NoopHook) OnFallbackStart(Info) {}

// OnFallbackEmit does nothing.
func (NoopHook) OnFallbackEmit(Info, any) {}

// OnFallbackSuccess does nothing.
func (NoopHook) OnFallbackSuccess(Info) {}

// OnFallbackError does nothing.
func (NoopHook) OnFallbackError(Info, error) {}

// OnSuccess does nothing.
func (NoopHook) OnSuccess(Info) {}

// OnError does nothing.
func (NoopHook) OnError(Info, error) {}

// OnCacheHit does nothing.
func (NoopHook) OnCacheHit(Info) {}

// OnUnsubscribe does nothing.
func (NoopHook) OnUnsubscribe(Info) {}

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
