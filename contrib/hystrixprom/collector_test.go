package hystrixprom

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/telemetry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newRuntime returns a runtime on a fake clock, with opts, closed when the test ends.
func newRuntime(t testing.TB, opts ...command.Option) (*command.Runtime, *clock.Fake) {
	clk := clock.NewFake(time.Unix(1_000_000, 0))
	rt := command.NewRuntime(append([]command.Option{command.WithClock(clk)}, opts...)...)
	t.Cleanup(func() {
		rt.Metrics().Flush()
		rt.Close()
	})
	return rt, clk
}

// execute runs one SEMAPHORE command of key that takes d on the fake clock and fails
// with err (nil: succeeds); a fallback answers failures.
func execute(rt *command.Runtime, clk *clock.Fake, key string, d time.Duration, err error) {
	_, _ = command.New(command.Setter{Runtime: rt, CommandKey: key, GroupKey: "Shop",
		Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}},
		func(context.Context) (string, error) {
			clk.Advance(d)
			return "v", err
		}).
		WithFallback(func(context.Context, error) (string, error) { return "fb", nil }).
		Execute(context.Background())
}

// advance moves the clock in steps of the metrics resolution, rolling every bucket.
func advance(rt *command.Runtime, clk *clock.Fake, d time.Duration) {
	for ; d > 0; d -= 100 * time.Millisecond {
		clk.Advance(100 * time.Millisecond)
		rt.Metrics().Flush()
	}
}

func TestCollectorExportsByPrometheusConventions(t *testing.T) {
	rt, clk := newRuntime(t)
	c := New(rt)
	defer c.Close()
	execute(rt, clk, "GetUser", 25*time.Millisecond, nil)
	execute(rt, clk, "GetUser", 25*time.Millisecond, nil)
	execute(rt, clk, "GetUser", 25*time.Millisecond, errors.New("down"))
	advance(rt, clk, 10*time.Second)

	const want = `
# HELP hystrix_circuit_breaker_state 1 for the state the circuit breaker of a command key is in (closed, open, half_open), 0 for the others; force flags are not reflected.
# TYPE hystrix_circuit_breaker_state gauge
hystrix_circuit_breaker_state{command="GetUser",group="Shop",state="closed",thread_pool="Shop"} 1
hystrix_circuit_breaker_state{command="GetUser",group="Shop",state="half_open",thread_pool="Shop"} 0
hystrix_circuit_breaker_state{command="GetUser",group="Shop",state="open",thread_pool="Shop"} 0
# HELP hystrix_command_execution_latency_mean_seconds Mean run latency over the rollingPercentile window.
# TYPE hystrix_command_execution_latency_mean_seconds gauge
hystrix_command_execution_latency_mean_seconds{command="GetUser",group="Shop",thread_pool="Shop"} 0.025
# HELP hystrix_command_health_errors Failed requests (failure, timeout, rejections) in the circuit breaker's health window.
# TYPE hystrix_command_health_errors gauge
hystrix_command_health_errors{command="GetUser",group="Shop",thread_pool="Shop"} 1
`
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want),
		"hystrix_circuit_breaker_state", "hystrix_command_execution_latency_mean_seconds", "hystrix_command_health_errors"))

	assert.Equal(t, map[string]float64{"success": 2, "failure": 1, "fallback_success": 1, "timeout": 0,
		"short_circuited": 0, "thread_pool_rejected": 0, "semaphore_rejected": 0},
		byLabel(t, c, "hystrix_command_events_total", "event"))
	latency := byLabel(t, c, "hystrix_command_execution_latency_seconds", "percentile")
	assert.Len(t, latency, 4)
	assert.InEpsilon(t, 0.025, latency["99"], 0.01, "within the sketch's 1%")

	problems, err := testutil.CollectAndLint(c)
	require.NoError(t, err)
	assert.Empty(t, problems, "promlint, as promtool check metrics")

	assert.Equal(t, 24, testutil.CollectAndCount(c), "series of one command key (package doc)")
}

// byLabel gathers c and returns the values of metric by the value of one of its labels.
func byLabel(t *testing.T, c prometheus.Collector, metric, label string) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	families, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != metric {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
				}
			}
		}
	}
	return out
}

func TestCollectorDescribesEveryMetricOnce(t *testing.T) {
	rt, _ := newRuntime(t)
	c := New(rt)
	defer c.Close()
	ch := make(chan *prometheus.Desc, telemetry.NumMetrics+1)
	c.Describe(ch)
	close(ch)
	names := map[string]bool{}
	for d := range ch {
		names[d.String()] = true
	}
	assert.Len(t, names, telemetry.NumMetrics)

	reg := prometheus.NewPedanticRegistry() // checks that what is collected was described
	require.NoError(t, reg.Register(c))
	rt.Metrics().ThreadPool("Pool")
	rt.Metrics().Collapser("Batcher")
	_, err := reg.Gather()
	require.NoError(t, err)
}

func TestName(t *testing.T) {
	for i, want := range map[int]string{
		telemetry.CommandEvents:               "hystrix_command_events_total",
		telemetry.CommandExecutionLatency:     "hystrix_command_execution_latency_seconds",
		telemetry.CommandTotalLatencyMean:     "hystrix_command_total_latency_mean_seconds",
		telemetry.CircuitBreakerState:         "hystrix_circuit_breaker_state",
		telemetry.CircuitBreakerTransitions:   "hystrix_circuit_breaker_transitions_total",
		telemetry.ThreadPoolActiveThreads:     "hystrix_thread_pool_active_threads",
		telemetry.ThreadPoolCompletedTasks:    "hystrix_thread_pool_completed_tasks_total",
		telemetry.CollapserBatchSize:          "hystrix_collapser_batch_size",
		telemetry.CommandConcurrentExecutions: "hystrix_command_concurrent_executions",
		telemetry.CommandAdaptiveLimit:        "hystrix_command_adaptive_limit",
	} {
		assert.Equal(t, want, name(telemetry.Catalogue[i]))
	}
}
