package bench

import (
	"context"
	"sync/atomic"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/bulkhead"
	"github.com/failsafe-go/failsafe-go/circuitbreaker"
	"github.com/failsafe-go/failsafe-go/fallback"
	"github.com/failsafe-go/failsafe-go/timeout"
)

// failsafeTarget is failsafe-go with fallback, circuit breaker, bulkhead and timeout,
// outermost first (Hystrix's order).
type failsafeTarget struct {
	exec failsafe.Executor[int]
	done atomic.Int64 // executions seen by the OnDone listener (Settings.Metrics)
}

// NewFailsafe returns a failsafe-go executor configured from s: a time-based failure-rate
// breaker (ErrorThresholdPercentage over RollingWindow once RequestVolumeThreshold calls
// were made, one trial after SleepWindow), a bulkhead of MaxConcurrent that rejects at
// once, a Timeout and a constant fallback. With s.Metrics an OnDone listener counts the
// executions (failsafe-go has no metrics stream; its breaker counts reset on each
// transition).
func NewFailsafe(_ string, s Settings) Target {
	t := &failsafeTarget{}
	t.exec = failsafe.With(failsafePolicies(s, fallback.NewWithResult(FallbackAnswer), nil)...)
	if s.Metrics {
		t.exec = t.exec.OnDone(func(failsafe.ExecutionDoneEvent[int]) { t.done.Add(1) })
	}
	return t
}

// failsafePolicies returns fb, a circuit breaker, a bulkhead and a timeout configured
// from s, outermost first (see NewFailsafe). failed, if not nil, says which results and
// errors the breaker counts as failures (default: every error).
func failsafePolicies[R any](s Settings, fb failsafe.Policy[R], failed func(R, error) bool) []failsafe.Policy[R] {
	b := circuitbreaker.NewBuilder[R]()
	if failed != nil {
		b = b.HandleIf(failed)
	}
	cb := b.
		WithFailureRateThreshold(float64(s.ErrorThresholdPercentage)/100, uint(s.RequestVolumeThreshold), s.RollingWindow).
		WithSuccessThreshold(1).
		WithDelay(s.SleepWindow).
		Build()
	return []failsafe.Policy[R]{fb, cb, bulkhead.New[R](uint(s.MaxConcurrent)), timeout.New[R](s.Timeout)}
}

// Do runs run through the executor with the caller's context (on the caller's goroutine).
func (t *failsafeTarget) Do(ctx context.Context, run Run) (int, error) {
	return t.exec.WithContext(ctx).GetWithExecution(func(e failsafe.Execution[int]) (int, error) {
		return run(e.Context())
	})
}

// Close does nothing: the executor holds no goroutines between calls.
func (t *failsafeTarget) Close() {}

// Recorded returns the executions counted by the OnDone listener (synchronous).
func (t *failsafeTarget) Recorded() int64 { return t.done.Load() }
