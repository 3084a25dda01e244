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

// word is a breaker's whole mutable state packed in one uint64 so that readers need a
// single atomic load:
//
//	bits 0-1  State
//	bit  2    released: OPEN whose sleep window is already over (a trial was released
//	          without a verdict, or abandoned), so the next caller gets a trial at once
//	bits 3-63 stamp: nanoseconds since the breaker's base time; in OPEN when the sleep
//	          window started, in HALF_OPEN when the trial started, 0 in CLOSED
//
// 61 bits of nanoseconds cover 73 years of process uptime.
type word uint64

const (
	stateMask   = 0b11
	releasedBit = 0b100
	stampShift  = 3
)

func pack(s State, stamp time.Duration, released bool) word {
	if stamp < 0 {
		stamp = 0
	}
	w := word(stamp)<<stampShift | word(s)
	if released {
		w |= releasedBit
	}
	return w
}

func (w word) state() State         { return State(w & stateMask) }
func (w word) released() bool       { return w&releasedBit != 0 }
func (w word) stamp() time.Duration { return time.Duration(w >> stampShift) }
