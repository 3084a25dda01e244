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
)

// String returns the Hystrix spelling: "THREAD" or "SEMAPHORE".
func (s IsolationStrategy) String() string {
	switch s {
	case Thread:
		return "THREAD"
	case Semaphore:
		return "SEMAPHORE"
	}
	return "IsolationStrategy(" + strconv.Itoa(int(s)) + ")"
}

// ParseIsolationStrategy parses "THREAD" or "SEMAPHORE" (surrounding spaces and letter
// case are ignored).
func ParseIsolationStrategy(s string) (IsolationStrategy, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "THREAD":
		return Thread, nil
	case "SEMAPHORE":
		return Semaphore, nil
	}
	return 0, fmt.Errorf("unknown isolation strategy (want THREAD or SEMAPHORE)")
}
