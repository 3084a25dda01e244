package bench

import (
	"context"

	"github.com/sony/gobreaker/v2"
)

// gobreakerTarget is sony/gobreaker: a breaker only (no timeout, no concurrency limit);
// the fallback is the caller's code.
type gobreakerTarget struct {
	cb *gobreaker.CircuitBreaker[int]
}

// NewGobreaker returns a breaker configured from s: counts over a rolling RollingWindow of
// 10 buckets, open when at least RequestVolumeThreshold calls were made and the failure
// percentage is at least ErrorThresholdPercentage, one trial after SleepWindow.
func NewGobreaker(key string, s Settings) Target {
	volume, pct := uint64(s.RequestVolumeThreshold), uint64(s.ErrorThresholdPercentage)
	return &gobreakerTarget{cb: gobreaker.NewCircuitBreaker[int](gobreaker.Settings{
		Name:         key,
		MaxRequests:  1,
		Interval:     s.RollingWindow,
		BucketPeriod: s.RollingWindow / 10,
		Timeout:      s.SleepWindow,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			return uint64(c.Requests) >= volume && uint64(c.TotalFailures)*100 >= pct*uint64(c.Requests)
		},
	})}
}

// Do runs run through CircuitBreaker.Execute and answers FallbackAnswer on any error.
func (t *gobreakerTarget) Do(ctx context.Context, run Run) (int, error) {
	v, err := t.cb.Execute(func() (int, error) { return run(ctx) })
	if err != nil {
		return FallbackAnswer, nil
	}
	return v, nil
}

// Close does nothing: gobreaker starts no goroutines.
func (t *gobreakerTarget) Close() {}
