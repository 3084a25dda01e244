package bench

import (
	"context"
	"fmt"

	"github.com/cep21/circuit/v4"
	"github.com/cep21/circuit/v4/closers/hystrix"
	"github.com/cep21/circuit/v4/metrics/rolling"
)

// cep21Target is github.com/cep21/circuit/v4 with its Hystrix opener and closer.
type cep21Target struct {
	c     *circuit.Circuit
	stats *rolling.RunStats // nil unless Settings.Metrics
}

// NewCep21 returns a cep21/circuit circuit with hystrix.Factory (OpenerFactory and
// CloserFactory) configured from s, and the execution and fallback concurrency limits of s.
// With s.Metrics it also attaches the library's rolling stats (metrics/rolling).
func NewCep21(key string, s Settings) Target {
	f := hystrix.Factory{
		ConfigureOpener: hystrix.ConfigureOpener{
			RequestVolumeThreshold:   int64(s.RequestVolumeThreshold),
			ErrorThresholdPercentage: int64(s.ErrorThresholdPercentage),
			RollingDuration:          s.RollingWindow,
			NumBuckets:               10,
		},
		ConfigureCloser: hystrix.ConfigureCloser{SleepWindow: s.SleepWindow},
	}
	m := circuit.Manager{DefaultCircuitProperties: []circuit.CommandPropertiesConstructor{f.Configure}}
	var stats rolling.StatFactory
	if s.Metrics {
		m.DefaultCircuitProperties = append(m.DefaultCircuitProperties, stats.CreateConfig)
	}
	c, err := m.CreateCircuit(key, circuit.Config{
		Execution: circuit.ExecutionConfig{Timeout: s.Timeout, MaxConcurrentRequests: int64(s.MaxConcurrent)},
		Fallback:  circuit.FallbackConfig{MaxConcurrentRequests: int64(s.MaxConcurrent)},
	})
	if err != nil {
		panic(fmt.Sprintf("bench: cep21 circuit %q: %v", key, err))
	}
	return &cep21Target{c: c, stats: stats.RunStats(key)}
}

// Do runs run through Circuit.Execute (on the caller's goroutine).
func (t *cep21Target) Do(ctx context.Context, run Run) (int, error) {
	var v int
	err := t.c.Execute(ctx, func(ctx context.Context) error {
		r, err := run(ctx)
		v = r
		return err
	}, func(context.Context, error) error {
		v = FallbackAnswer
		return nil
	})
	return v, err
}

// Close does nothing: a cep21 circuit starts no goroutines.
func (t *cep21Target) Close() {}

// Recorded sums the rolling stats' cumulative counters (synchronous).
func (t *cep21Target) Recorded() int64 {
	if t.stats == nil {
		return 0
	}
	s := t.stats
	return s.Successes.TotalSum() + s.ErrFailures.TotalSum() + s.ErrTimeouts.TotalSum() +
		s.ErrShortCircuits.TotalSum() + s.ErrConcurrencyLimitRejects.TotalSum() +
		s.ErrBadRequests.TotalSum() + s.ErrInterrupts.TotalSum()
}
