package breaker

// NoOp returns a CircuitBreaker that always allows, is never open and ignores every
// outcome. A registry breaker behaves the same way while circuitBreaker.enabled is
// false; NoOp is for callers that want no breaker at all (tests, tools).
func NoOp() CircuitBreaker { return noop{} }

type noop struct{}

func (noop) AllowRequest() bool     { return true }
func (noop) AttemptExecution() bool { return true }
func (noop) MarkSuccess()           {}
func (noop) MarkNonSuccess()        {}
func (noop) MarkCancelled()         {}
func (noop) ReleaseTrial()          {}
func (noop) IsOpen() bool           { return false }
func (noop) State() State           { return Closed }
func (noop) Reset()                 {}
