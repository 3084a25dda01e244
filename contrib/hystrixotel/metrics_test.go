package hystrixotel

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// collect returns the data of the metric named name from one collection.
func (e *env) collect(name string) metricdata.Aggregation {
	e.t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(e.t, e.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	e.t.Fatalf("no metric %s", name)
	return nil
}

// events returns the hystrix.command.events counts of key by event, and checks the
// counter is cumulative and monotonic.
func (e *env) events(key string) map[string]int64 {
	sum, ok := e.collect("hystrix.command.events").(metricdata.Sum[int64])
	require.True(e.t, ok)
	assert.True(e.t, sum.IsMonotonic)
	assert.Equal(e.t, metricdata.CumulativeTemporality, sum.Temporality)
	out := map[string]int64{}
	for _, dp := range sum.DataPoints {
		if v, _ := dp.Attributes.Value("hystrix.command"); v.AsString() == key {
			ev, _ := dp.Attributes.Value("hystrix.event")
			out[ev.AsString()] = dp.Value
		}
	}
	return out
}

func TestMetricsCountEveryScenario(t *testing.T) {
	e := newEnv(t)
	for _, sc := range scenarios {
		_, _ = sc.execute(e, t.Context())
		_, _ = sc.execute(e, t.Context())
		// Let a hedge's losers end before the next scenarios move the clock: one still
		// unwinding when the clock passes its deadline would end TIMEOUT.
		m := e.rt.Metrics().Command(sc.key)
		assert.Eventually(t, func() bool { return m.CurrentConcurrency() == 0 }, 5*time.Second, time.Millisecond, sc.key)
	}
	e.clk.Advance(time.Second) // cumulative counts move on at the end of a rolling-stats bucket (1 s)
	e.rt.Metrics().Flush()

	outcomes := map[string]int64{"success": 0, "failure": 0, "timeout": 0, "short_circuited": 0,
		"thread_pool_rejected": 0, "semaphore_rejected": 0}
	for _, sc := range scenarios {
		want := map[string]int64{}
		for k, v := range outcomes {
			want[k] = v
		}
		for _, ev := range sc.events {
			want[lower(ev)] = 2
		}
		if sc.failureType != "" {
			want["exception_thrown"] = 2 // derived by the metrics
		}
		if sc.losers > 0 { // counted on the losers' goroutines, once they end
			want["cancelled"] = 2 * sc.losers
			assert.Eventually(t, func() bool {
				e.clk.Advance(time.Second)
				e.rt.Metrics().Flush()
				return assert.ObjectsAreEqual(want, e.events(sc.key))
			}, 5*time.Second, time.Millisecond)
		}
		assert.Equal(t, want, e.events(sc.key), sc.key)
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func TestMetricsGaugesCarryTheCommandAttributes(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		_, err := scenarios[0].execute(e, t.Context())
		require.NoError(t, err)
	}
	for range 10 {
		e.clk.Advance(100 * time.Millisecond) // two health snapshots taken
		e.rt.Metrics().Flush()
	}
	state, ok := e.collect("hystrix.circuit_breaker.state").(metricdata.Gauge[float64])
	require.True(t, ok)
	got := map[string]float64{}
	for _, dp := range state.DataPoints {
		s, _ := dp.Attributes.Value("hystrix.state")
		got[s.AsString()] = dp.Value
		assert.Equal(t, attribute.NewSet(
			attribute.String("hystrix.command", "Success"), attribute.String("hystrix.group", "Shop"),
			attribute.String("hystrix.thread_pool", "Shop"), attribute.String("hystrix.state", s.AsString()),
		), dp.Attributes)
	}
	assert.Equal(t, map[string]float64{"closed": 1, "open": 0, "half_open": 0}, got)

	health, ok := e.collect("hystrix.command.health.requests").(metricdata.Gauge[float64])
	require.True(t, ok)
	require.Len(t, health.DataPoints, 1)
	assert.Equal(t, 3.0, health.DataPoints[0].Value)

	latency, ok := e.collect("hystrix.command.execution_latency").(metricdata.Gauge[float64])
	require.True(t, ok)
	assert.Len(t, latency.DataPoints, 4, "a data point per percentile")
}

func TestMetricsCloseUnregisters(t *testing.T) {
	e := newEnv(t)
	_, err := scenarios[0].execute(e, t.Context())
	require.NoError(t, err)
	e.rt.Metrics().Flush()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { require.NoError(t, mp.Shutdown(context.Background())) }()
	m, err := RegisterMetrics(mp, e.rt)
	require.NoError(t, err)
	points := func() int {
		var rm metricdata.ResourceMetrics
		require.NoError(t, reader.Collect(context.Background(), &rm))
		n := 0
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				switch d := m.Data.(type) {
				case metricdata.Sum[int64]:
					n += len(d.DataPoints)
				case metricdata.Gauge[float64]:
					n += len(d.DataPoints)
				}
			}
		}
		return n
	}
	assert.Equal(t, 23, points(), "one command key: its six outcomes, latencies, concurrency, health, breaker state")
	require.NoError(t, m.Close())
	assert.Zero(t, points())
}

// A key under ADAPTIVE isolation publishes its limit's gauges.
func TestMetricsAdaptiveGauges(t *testing.T) {
	e := newEnv(t)
	s := command.Setter{Runtime: e.rt, CommandKey: "Adaptive", GroupKey: "Shop", Properties: config.Overrides{
		"execution.isolation.strategy": "ADAPTIVE", "execution.isolation.adaptive.initialLimit": "7"}}
	_, err := command.New(s, func(context.Context) (string, error) { return "v", nil }).Execute(t.Context())
	require.NoError(t, err)
	for name, want := range map[string]float64{"hystrix.command.adaptive.limit": 7, "hystrix.command.adaptive.inflight": 0,
		"hystrix.command.adaptive.queued": 0} {
		g, ok := e.collect(name).(metricdata.Gauge[float64])
		require.True(t, ok, name)
		require.Len(t, g.DataPoints, 1, name)
		assert.Equal(t, want, g.DataPoints[0].Value, name)
	}
}
