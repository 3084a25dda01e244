package config

import (
	"fmt"
	"strconv"
	"strings"
)

// IsolationStrategy is the value of execution.isolation.strategy: how a command's run
// is isolated from the caller.
type IsolationStrategy uint8

const (
	// Thread runs the command on a bounded goroutine pool (Hystrix THREAD, the default).
	Thread IsolationStrategy = iota
	// Semaphore runs the command on the caller's goroutine behind a counting semaphore.
	Semaphore
	// Adaptive runs the command on the caller's goroutine behind a concurrency limit that
	// learns the dependency's capacity (beyond Hystrix: see package adaptive and the
	// execution.isolation.adaptive.* properties).
	Adaptive
)

// String returns the Hystrix spelling: "THREAD", "SEMAPHORE" or "ADAPTIVE".
func (s IsolationStrategy) String() string {
	switch s {
	case Thread:
		return "THREAD"
	case Semaphore:
		return "SEMAPHORE"
	case Adaptive:
		return "ADAPTIVE"
	}
	return "IsolationStrategy(" + strconv.Itoa(int(s)) + ")"
}

// ParseIsolationStrategy parses "THREAD", "SEMAPHORE" or "ADAPTIVE" (surrounding spaces
// and letter case are ignored).
func ParseIsolationStrategy(s string) (IsolationStrategy, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "THREAD":
		return Thread, nil
	case "SEMAPHORE":
		return Semaphore, nil
	case "ADAPTIVE":
		return Adaptive, nil
	}
	return 0, fmt.Errorf("unknown isolation strategy (want THREAD, SEMAPHORE or ADAPTIVE)")
}
