package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afex/hystrix-go/hystrix"
	metricCollector "github.com/afex/hystrix-go/hystrix/metric_collector"
)

// afexTarget is github.com/afex/hystrix-go. Its state is global: circuits, settings and
// metric collectors live in package variables, and every circuit starts two goroutines
// (metric exchange and pool metrics monitors) that never stop.
type afexTarget struct {
	name    string
	metrics bool
}

// afexConfigured holds the command names already configured: hystrix-go is configured
// once per name for the life of the process.
var afexConfigured sync.Map

// NewAfex configures the hystrix-go command key once (timeout, concurrency, volume,
// sleep window, error percentage; its rolling window is fixed at 10 s) and returns a
// target calling hystrix.DoC. It installs, once per process, a logger that counts the
// events hystrix-go reports dropping (Dropped; logging happens only off the fast path).
// With s.Metrics it also registers, once per process, a metric collector that counts what
// hystrix-go delivers (Recorded); the collector then applies to every circuit created
// afterwards.
func NewAfex(key string, s Settings) Target {
	afexLogDrops()
	if s.Metrics {
		afexCollect()
	}
	if _, loaded := afexConfigured.LoadOrStore(key, true); !loaded {
		hystrix.ConfigureCommand(key, hystrix.CommandConfig{
			Timeout:                int(s.Timeout / time.Millisecond),
			MaxConcurrentRequests:  s.MaxConcurrent,
			RequestVolumeThreshold: s.RequestVolumeThreshold,
			SleepWindow:            int(s.SleepWindow / time.Millisecond),
			ErrorPercentThreshold:  s.ErrorThresholdPercentage,
		})
	}
	return &afexTarget{name: key, metrics: s.Metrics}
}

// Do runs run through hystrix.DoC: hystrix-go runs it on a goroutine of its own (and
// another one for the timeout), whatever the caller does.
func (t *afexTarget) Do(ctx context.Context, run Run) (int, error) {
	var v atomic.Int64 // run may still write after a timeout answered
	err := hystrix.DoC(ctx, t.name, func(ctx context.Context) error {
		r, err := run(ctx)
		v.Store(int64(r))
		return err
	}, func(context.Context, error) error {
		v.Store(FallbackAnswer)
		return nil
	})
	return int(v.Load()), err
}

// Close does nothing: hystrix-go cannot stop a circuit's goroutines.
func (t *afexTarget) Close() {}

// Recorded returns the executions hystrix-go's metric exchange delivered to the counting
// collector, once the count has stopped moving (delivery is asynchronous).
func (t *afexTarget) Recorded() int64 {
	if !t.metrics {
		return 0
	}
	c := afexCountsOf(t.name)
	return settle(func() int64 { return c.attempts.Load() })
}

// Dropped returns the events hystrix-go logged as dropped ("metrics channel is at
// capacity") for this command.
func (t *afexTarget) Dropped() int64 { return afexCountsOf(t.name).dropped.Load() }

// afexCounts are the counts of one hystrix-go command name.
type afexCounts struct {
	attempts atomic.Int64 // MetricResult.Attempts delivered to the collector
	dropped  atomic.Int64 // "at capacity" log lines
}

var (
	afexCountsByName sync.Map // name -> *afexCounts
	afexLogDrops     = sync.OnceFunc(func() { hystrix.SetLogger(afexLogger{}) })
	afexCollect      = sync.OnceFunc(func() {
		metricCollector.Registry.Register(func(name string) metricCollector.MetricCollector {
			return afexCollector{afexCountsOf(name)}
		})
	})
)

func afexCountsOf(name string) *afexCounts {
	c, _ := afexCountsByName.LoadOrStore(name, &afexCounts{})
	return c.(*afexCounts)
}

// afexCollector counts every MetricResult; it ignores Reset (hystrix-go resets collectors
// when a circuit closes) so that its counts are cumulative.
type afexCollector struct{ c *afexCounts }

func (a afexCollector) Update(r metricCollector.MetricResult) { a.c.attempts.Add(int64(r.Attempts)) }
func (a afexCollector) Reset()                                {}

// afexLogger counts hystrix-go's "hystrix: metrics channel (<name>) is at capacity"
// messages, logged for every event it drops.
type afexLogger struct{}

func (afexLogger) Printf(format string, items ...any) {
	const marker, suffix = "metrics channel (", ") is at capacity"
	msg := fmt.Sprintf(format, items...)
	if _, rest, ok := strings.Cut(msg, marker); ok && strings.HasSuffix(rest, suffix) {
		afexCountsOf(strings.TrimSuffix(rest, suffix)).dropped.Add(1)
	}
}

// settle polls read until two reads 100 ms apart agree (at most 3 s) and returns the value:
// asynchronous metrics have caught up when their count stops moving.
func settle(read func() int64) int64 {
	last := read()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		v := read()
		if v == last {
			return v
		}
		last = v
	}
	return last
}
