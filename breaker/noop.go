package breaker

// noOp returns a CircuitBreaker that always allows, is never open and ignores every
// outcome. A registry breaker behaves the same way while circuitBreaker.enabled is
// false; Registry.Get returns it for a key without properties.
func noOp() CircuitBreaker { return noop{} }

type noop struct{}

func (noop) AllowRequest() bool      { return true }
func (noop) Attempt() (Ticket, bool) { return 0, true }
func (noop) Report(Ticket, Outcome)  {}
func (noop) IsOpen() bool            { return false }
func (noop) State() State            { return Closed }
func (noop) Reset()                  {}
