//go:build !race

package command_test

// raceEnabled: the race detector slows every execution about tenfold.
const raceEnabled = false
