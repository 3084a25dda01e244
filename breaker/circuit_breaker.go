package breaker

// Ticket identifies the breaker state a caller was let through under (a generation):
// every transition starts a new generation, so a verdict that arrives after the state it
// was admitted under has ended changes nothing.
type Ticket uint32

// Outcome is what an execution let through by Attempt reports back.
type Outcome uint8

const (
	// Success is SUCCESS.
	Success Outcome = iota + 1
	// Failure is FAILURE, TIMEOUT, THREAD_POOL_REJECTED, SEMAPHORE_REJECTED or a stream's
	// ESTABLISH_TIMEOUT: the events that count as errors in the health counts.
	Failure
	// BadRequest is BAD_REQUEST, or any other outcome that says nothing about health (a
	// command reports RATE_LIMITED, say, as BadRequest); a trial is released (not reopened).
	BadRequest
	// Cancelled is an execution unsubscribed before an outcome; a trial reopens with a
	// fresh sleep window.
	Cancelled
)

// CircuitBreaker guards one command key. All methods are safe for concurrent use.
//
// A command calls Attempt once, before it takes its isolation (semaphore or pool slot);
// false means short-circuit (SHORT_CIRCUITED, then fallback). A command that was let
// through reports exactly one Outcome with the ticket it got, as soon as it has one and
// before its completion reaches the key's metrics (circuitBreaker.evaluateOnFailure
// counts a reported failure on top of the live health counts).
//
// Only the verdict that holds the HALF_OPEN trial's ticket decides the trial. Hystrix
// takes any success reported while HALF_OPEN as the trial's, even one from a request
// admitted while CLOSED that was merely slow; here such a late verdict carries an older
// ticket and changes nothing, so a dependency that is still failing cannot be closed by
// the stragglers of the traffic that opened the breaker.
type CircuitBreaker interface {
	// AllowRequest reports whether a request would be let through now, without
	// changing any state (dashboards, diagnostics).
	AllowRequest() bool
	// Attempt reports whether a request may run now, and the ticket to report its
	// outcome with. Once the sleep window is over exactly one caller, the trial, gets
	// true and moves OPEN -> HALF_OPEN. In CLOSED it is a few atomic loads: no clock, no
	// allocation, no lock.
	Attempt() (t Ticket, ok bool)
	// Report tells the outcome of an execution Attempt let through. With the trial's
	// ticket: Success closes the breaker (fresh health counts), Failure and Cancelled
	// reopen it with a fresh sleep window, BadRequest releases the trial (OPEN with the
	// sleep window already over, so the next caller is a new trial). In CLOSED only a
	// Failure matters, and only with circuitBreaker.evaluateOnFailure: the thresholds are
	// evaluated on the live health counts plus this failure. A ticket from an older
	// generation changes nothing.
	Report(t Ticket, o Outcome)
	// IsOpen reports whether requests are being short-circuited: false when disabled;
	// true when forced open; false when forced closed; else OPEN or HALF_OPEN.
	IsOpen() bool
	// State returns the state of the state machine, not affected by the force flags.
	State() State
	// Reset closes the breaker at once with fresh health counts (operator action); a
	// CLOSED breaker is left as it is.
	Reset()
}
