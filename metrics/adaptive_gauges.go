package metrics

// AdaptiveGauges are the live gauges of a command key's adaptive concurrency limit
// (ADAPTIVE isolation), as the command package reports them.
type AdaptiveGauges struct {
	Limit    int // the current limit
	Inflight int // executions holding a permit
	Queued   int // executions waiting for one
}

// SetAdaptiveGauges registers the function that reads the key's adaptive limit (the
// command package passes one when it binds the key's limiter); nil removes it.
func (m *CommandMetrics) SetAdaptiveGauges(f func() AdaptiveGauges) {
	if f == nil {
		m.adaptive.Store(nil)
		return
	}
	m.adaptive.Store(&f)
}

// AdaptiveGauges returns the key's adaptive limit gauges, and false when the key has no
// adaptive limit (it is not under ADAPTIVE isolation, or has not run since it was).
func (m *CommandMetrics) AdaptiveGauges() (AdaptiveGauges, bool) {
	if f := m.adaptive.Load(); f != nil {
		return (*f)(), true
	}
	return AdaptiveGauges{}, false
}
