package dashboard

import "github.com/rxhystrix/rxhystrix/clock"

// withClock sets the clock that paces the intervals and stamps currentTime (default
// clock.System()).
func withClock(c clock.Clock) Option {
	return func(o *options) {
		if c != nil {
			o.Clock = c
		}
	}
}
