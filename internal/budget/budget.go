package budget

import "time"

// Budget is what a stage that makes extra attempts (a retry, a hedge, a stream that
// resumes) asks before each one. Times are offsets on the caller's clock (the command
// runtime's, a fake one in tests); they only need to grow.
type Budget interface {
	// Original records an original request at now.
	Original(now time.Duration)
	// Withdraw takes one extra attempt at now, or reports false when the budget is
	// exhausted (then no extra attempt must be made).
	Withdraw(now time.Duration) bool
	// Outcome records the outcome of an attempt (original or extra) that reached the
	// dependency: ok is a success, !ok a failure. The ratio budget ignores it.
	Outcome(ok bool)
}
