package hystrixotel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/telemetry"
)

// Metrics are the metrics of a command.Runtime as observable OpenTelemetry instruments:
// the same catalogue the Prometheus collector (contrib/hystrixprom) exports, named
// hystrix.<name> (hystrix.command.events, hystrix.command.execution_latency in s,
// hystrix.circuit_breaker.state, ...) with attributes hystrix.command, hystrix.group,
// hystrix.thread_pool, hystrix.collapser, hystrix.event, hystrix.percentile,
// hystrix.state, hystrix.from and hystrix.to. One callback reads the registries at each
// collection; executions do no work for it. Counters are Int64ObservableCounters of the
// library's cumulative counts; everything else is a Float64ObservableGauge.
type Metrics struct {
	r   *telemetry.Reader[[]metric.ObserveOption]
	reg metric.Registration
}

// RegisterMetrics creates the instruments on a meter of mp (scope ScopeName) and
// registers the callback that reads rt. Close unregisters it.
func RegisterMetrics(mp metric.MeterProvider, rt *command.Runtime) (*Metrics, error) {
	meter := mp.Meter(ScopeName)
	var (
		counters [telemetry.NumMetrics]metric.Int64ObservableCounter
		gauges   [telemetry.NumMetrics]metric.Float64ObservableGauge
		all      []metric.Observable
		errs     []error
	)
	for i, m := range telemetry.Catalogue {
		name := "hystrix." + m.Name
		var err error
		if m.Kind == telemetry.Counter {
			counters[i], err = meter.Int64ObservableCounter(name, metric.WithUnit(m.Unit), metric.WithDescription(m.Help))
			all = append(all, counters[i])
		} else {
			gauges[i], err = meter.Float64ObservableGauge(name, metric.WithUnit(m.Unit), metric.WithDescription(m.Help))
			all = append(all, gauges[i])
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r := telemetry.NewReader(rt, attributeSet)
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		r.Read(func(id int, attrs []metric.ObserveOption, v float64) {
			if counters[id] != nil {
				o.ObserveInt64(counters[id], int64(v), attrs...)
			} else {
				o.ObserveFloat64(gauges[id], v, attrs...)
			}
		})
		return nil
	}, all...)
	if err != nil {
		r.Close()
		return nil, err
	}
	return &Metrics{r: r, reg: reg}, nil
}

// attributeSet makes the attribute set of a label set, hystrix.<name> for each label, once
// per label set of each key: an observation then carries a set made already.
func attributeSet(_ []metric.ObserveOption, names, values []string) []metric.ObserveOption {
	kvs := make([]attribute.KeyValue, len(names))
	for i, n := range names {
		kvs[i] = attribute.String("hystrix."+n, values[i])
	}
	return []metric.ObserveOption{metric.WithAttributeSet(attribute.NewSet(kvs...))}
}

// Close unregisters the callback and stops counting breaker transitions.
func (m *Metrics) Close() error {
	m.r.Close()
	return m.reg.Unregister()
}
