package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Limiter admits calls at a rate. Its methods are safe for concurrent use and never block.
type Limiter interface {
	// Reserve asks for one permit at now. It returns (0, true) when a permit is free now;
	// (wait, true) when the next permit is free after wait <= maxWait, which is then the
	// caller's (it starts after waiting, or gives the permit back with Cancel); and
	// (wait, false) when none is free within maxWait: nothing is taken, and wait is how
	// long until a permit would be free.
	Reserve(now, maxWait time.Duration) (wait time.Duration, ok bool)
	// Cancel gives back a permit Reserve granted with a wait, when its caller stopped
	// waiting (its context ended) before using it.
	Cancel(now time.Duration)
}

// Rate is how many permits a Limiter grants: PerSecond on average, and up to Burst at
// once after a quiet spell. A Burst of 1 keeps no credit between calls: a permit free
// between two calls is lost for the time until the second (at 300 a second, calls every
// millisecond get 250); 2 or more absorbs that.
type Rate struct {
	PerSecond float64
	Burst     int
}

// validate reports whether r can be granted: PerSecond finite and above 0, Burst at
// least 1.
func (r Rate) validate() error {
	switch {
	case !(r.PerSecond > 0) || math.IsInf(r.PerSecond, 0):
		return fmt.Errorf("ratelimit: permits per second must be above 0 and finite, got %v", r.PerSecond)
	case r.Burst < 1:
		return fmt.Errorf("ratelimit: burst must be at least 1, got %d", r.Burst)
	case float64(time.Second)/r.PerSecond*float64(r.Burst) > 1<<60:
		return errors.New("ratelimit: burst intervals at this rate exceed the clock's range")
	}
	return nil
}

// interval returns the time between two permits at r, in nanoseconds (at least 1).
func (r Rate) interval() int64 {
	return max(1, int64(math.Round(float64(time.Second)/r.PerSecond)))
}
