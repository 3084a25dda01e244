package bench

import (
	"context"
	"errors"
	"time"
)

// Answer is the value every run returns on success.
const Answer = 42

// FallbackAnswer is the constant every fallback returns.
const FallbackAnswer = -1

// ErrDependency is the error of a failing run.
var ErrDependency = errors.New("bench: dependency failed")

// Run is the call to the dependency that a Target protects.
type Run func(ctx context.Context) (int, error)

// Succeed is a run that answers at once.
func Succeed(context.Context) (int, error) { return Answer, nil }

// Fail is a run that fails at once.
func Fail(context.Context) (int, error) { return 0, ErrDependency }

// SucceedWatching is a run that answers at once but looks at its context first, as every
// network or database call does: a library that arms its timeout only for runs that watch
// their context pays for it here, not with Succeed.
func SucceedWatching(ctx context.Context) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	default:
		return Answer, nil
	}
}

// FailWatching is SucceedWatching's failing twin.
func FailWatching(ctx context.Context) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	default:
		return 0, ErrDependency
	}
}

// NeverTrip is a request-volume threshold no benchmark reaches: the breaker still counts
// and evaluates every call but never opens (the Failure case measures failures with the
// circuit closed).
const NeverTrip = 1 << 30

// Settings is the configuration every library gets, in Hystrix terms.
type Settings struct {
	// Timeout is the execution timeout.
	Timeout time.Duration
	// RequestVolumeThreshold is the number of calls in the rolling window before the
	// breaker may open.
	RequestVolumeThreshold int
	// ErrorThresholdPercentage opens the breaker at or above this error percentage.
	ErrorThresholdPercentage int
	// SleepWindow is how long an open breaker refuses calls before one trial.
	SleepWindow time.Duration
	// RollingWindow is the window the breaker's counts cover (10 buckets).
	RollingWindow time.Duration
	// MaxConcurrent limits concurrent executions (and fallbacks, where configurable).
	MaxConcurrent int
	// Thread asks for goroutine isolation (rxhystrix THREAD; afex always uses goroutines).
	Thread bool
	// Metrics attaches the library's optional metric collectors so that Counter can report
	// what they recorded (cep21 rolling stats, afex collector, failsafe listeners). The
	// benchmarks leave it off; the behaviour comparison turns it on.
	Metrics bool
}

// Defaults returns Hystrix's defaults with a concurrency limit of 10,000.
func Defaults() Settings {
	return Settings{
		Timeout:                  time.Second,
		RequestVolumeThreshold:   20,
		ErrorThresholdPercentage: 50,
		SleepWindow:              5 * time.Second,
		RollingWindow:            10 * time.Second,
		MaxConcurrent:            10000,
	}
}
