package hystrixtest

import "time"

// SetStuckAfter makes Settle and ExpectTransitions give up after d instead of 10 s, for
// the tests of what they do then; restore puts the 10 s back.
func SetStuckAfter(d time.Duration) (restore func()) {
	old := stuckAfter
	stuckAfter = d
	return func() { stuckAfter = old }
}
