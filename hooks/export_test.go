package hooks

// Reset restores the no-op hook and the no-op notifier.
func (r *Registry) Reset() {
	r.SetExecutionHook(nil)
	r.SetEventNotifier(nil)
}
