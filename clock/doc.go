// Package clock abstracts time so that every time-driven part of rxhystrix (metric
// buckets, breaker sleep windows, command timeouts, collapser timers) can run on a fake
// clock in tests instead of sleeping.
//
// System returns the real clock. Fake is a manual clock: Advance moves it forward and
// fires, in deadline order and on the caller's goroutine, every timer that falls due.
//
//	clk := clock.NewFake(time.Unix(0, 0))
//	t := clk.NewTimer(time.Second)
//	clk.Advance(time.Second) // t.C() now holds the fire time
package clock
