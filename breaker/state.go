package breaker

import (
	"strconv"
	"time"
)

// State is the state of a circuit breaker.
type State uint8

const (
	// Closed lets every request through; health counts may open it.
	Closed State = iota
	// Open short-circuits every request until the sleep window has elapsed.
	Open
	// HalfOpen lets exactly one trial request through and waits for its verdict.
	HalfOpen
)

// String returns the Hystrix name of the state: "CLOSED", "OPEN" or "HALF_OPEN".
func (s State) String() string {
	switch s {
	case Closed:
		return "CLOSED"
	case Open:
		return "OPEN"
	case HalfOpen:
		return "HALF_OPEN"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// status is one generation of a breaker's state, immutable once published: readers need
// a single atomic load, and every transition publishes a new status with the next
// generation.
type status struct {
	state State
	// released: OPEN whose sleep window is already over (a trial was released without a
	// verdict, or abandoned), so the next caller gets a trial at once
	released bool
	gen      Ticket
	// stamp: time since the breaker's base; in OPEN when the sleep window started, in
	// HALF_OPEN when the trial started, 0 in CLOSED
	stamp time.Duration
}
