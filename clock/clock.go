package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Since returns the time elapsed since t (System reads only the monotonic clock for
	// it, about half the cost of Now().Sub(t)).
	Since(t time.Time) time.Duration
	// NewTimer returns a timer that sends the time on its channel once d has elapsed.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine (System) or on the advancing goroutine (Fake)
	// once d has elapsed. The returned Timer's C is nil.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a single-shot timer made by a Clock.
type Timer interface {
	// C returns the channel the fire time is sent on; nil for AfterFunc timers.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was still pending.
	Stop() bool
}

// System returns the clock of the operating system.
func System() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Since(t time.Time) time.Duration { return time.Since(t) }

func (systemClock) NewTimer(d time.Duration) Timer { return systemTimer{t: time.NewTimer(d)} }

func (systemClock) AfterFunc(d time.Duration, f func()) Timer {
	return systemTimer{t: time.AfterFunc(d, f)}
}

type systemTimer struct{ t *time.Timer }

func (s systemTimer) C() <-chan time.Time { return s.t.C }
func (s systemTimer) Stop() bool          { return s.t.Stop() }
