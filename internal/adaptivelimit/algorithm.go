package adaptivelimit

import (
	"math"
	"time"
)

// Window is what a limiter saw in one window of samples, handed to its Algorithm.
type Window struct {
	Samples     int           // RTT samples (calls that ended without a drop)
	MeanRTT     time.Duration // their mean
	Baseline    time.Duration // the lowest MeanRTT of a window so far: the RTT without queueing
	Drops       int           // calls that timed out or failed
	MaxInflight int           // the most calls in flight seen at a release
	Refused     bool          // a call was refused or queued in the window
}

// Algorithm computes the next limit from the current one and a window. It is called
// under the limiter's lock, one window at a time; the limiter smooths, rounds and clamps
// what it returns.
type Algorithm interface {
	Next(limit float64, w Window) float64
}

// Gradient2 is the gradient algorithm (see the package doc): the limit is scaled by how
// far the window's mean RTT is from Tolerance x Baseline, plus a headroom of sqrt(limit).
type Gradient2 struct {
	// Tolerance is how much slower than the baseline a window may be before the limit
	// shrinks (1.5 when 0).
	Tolerance float64
}

// Next implements Algorithm.
func (g Gradient2) Next(limit float64, w Window) float64 {
	tol := g.Tolerance
	if tol == 0 {
		tol = 1.5
	}
	grad := min(1, max(0.5, tol*float64(w.Baseline)/float64(w.MeanRTT)))
	next := limit*grad + math.Sqrt(limit)
	if next > limit && !used(limit, w) {
		return limit
	}
	return next
}

// Vegas is the Vegas algorithm (see the package doc): the queue in the dependency is
// estimated from the baseline, and the limit moves by max(1, log10(limit)) to keep it
// between Alpha and Beta times that step.
type Vegas struct {
	// Alpha and Beta bound the estimated queue, in steps of max(1, log10(limit)) (3 and 6
	// when 0).
	Alpha, Beta float64
}

// Next implements Algorithm.
func (v Vegas) Next(limit float64, w Window) float64 {
	alpha, beta := v.Alpha, v.Beta
	if alpha == 0 {
		alpha = 3
	}
	if beta == 0 {
		beta = 6
	}
	step := max(1, math.Log10(limit))
	queue := limit * (1 - float64(w.Baseline)/float64(w.MeanRTT))
	switch {
	case queue <= alpha*step && used(limit, w):
		return limit + step
	case queue >= beta*step:
		return limit - step
	}
	return limit
}

// used reports whether a window used the limit enough for a raise to be meaningful: a
// call was refused, or at least half the limit was in flight.
func used(limit float64, w Window) bool {
	return w.Refused || float64(w.MaxInflight)*2 >= limit
}
