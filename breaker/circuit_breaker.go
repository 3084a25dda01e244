package breaker

// CircuitBreaker guards one command key. All methods are safe for concurrent use.
//
// A command calls AttemptExecution once, before it takes its isolation (semaphore or
// pool slot); false means short-circuit (SHORT_CIRCUITED, then fallback). A command that
// was let through reports exactly one outcome:
//
//	SUCCESS                                      -> MarkSuccess
//	FAILURE, TIMEOUT, THREAD_POOL_REJECTED,
//	SEMAPHORE_REJECTED                           -> MarkNonSuccess
//	BAD_REQUEST                                  -> ReleaseTrial
//	unsubscribed / cancelled before an outcome   -> MarkCancelled
//
// Outcomes matter only while the breaker is HALF_OPEN (they are a few atomic loads
// otherwise), and they carry no trial identity: an outcome reported in HALF_OPEN is taken
// as the trial's verdict even if it comes from a request admitted before the breaker
// opened, as in Hystrix.
type CircuitBreaker interface {
	// AllowRequest reports whether a request would be let through now, without
	// changing any state (dashboards, diagnostics).
	AllowRequest() bool
	// AttemptExecution reports whether a request may run now. Once the sleep window is
	// over exactly one caller, the trial, gets true and moves OPEN -> HALF_OPEN.
	AttemptExecution() bool
	// MarkSuccess reports a successful execution: HALF_OPEN -> CLOSED with fresh
	// health counts.
	MarkSuccess()
	// MarkNonSuccess reports a failure, timeout or rejection: HALF_OPEN -> OPEN with a
	// fresh sleep window.
	MarkNonSuccess()
	// MarkCancelled reports an execution unsubscribed before its outcome: HALF_OPEN ->
	// OPEN with a fresh sleep window, reason "trial cancelled".
	MarkCancelled()
	// ReleaseTrial reports an outcome that says nothing about the dependency's health
	// (a bad request): HALF_OPEN -> OPEN with the sleep window already over, so the
	// next caller gets a new trial at once.
	ReleaseTrial()
	// IsOpen reports whether requests are being short-circuited: false when disabled;
	// true when forced open; false when forced closed; else OPEN or HALF_OPEN.
	IsOpen() bool
	// State returns the state of the state machine, not affected by the force flags.
	State() State
	// Reset closes the breaker at once with fresh health counts (operator action); a
	// CLOSED breaker is left as it is.
	Reset()
}
