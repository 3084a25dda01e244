package metrics

import (
	"math"
	"math/rand"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactPercentile is the value at rank p/100*(n-1) of sorted samples (the rank percentiles use).
func exactPercentile(sorted []time.Duration, p float64) time.Duration {
	return sorted[int(math.Floor(p/100*float64(len(sorted)-1)))]
}

func TestLatencyPercentilesWithinHistogramAccuracy(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	rnd := rand.New(rand.NewSource(7))
	var exec, total []time.Duration
	var sumExec, sumTotal time.Duration
	for range 5000 {
		d := time.Duration(float64(10*time.Millisecond) * math.Exp(rnd.NormFloat64()))
		tot := d + time.Duration(rnd.Intn(1000))*time.Microsecond
		exec, total = append(exec, d), append(total, tot)
		sumExec, sumTotal = sumExec+d, sumTotal+tot
		m.MarkComplete(result(Success).withExecuted(false).withExecutionLatency(d).WithTotalLatency(tot))
	}
	// did not run: no latency
	m.MarkComplete(result(ShortCircuited, FallbackSuccess).WithTotalLatency(time.Hour))
	m.MarkComplete(result(ResponseFromCache).WithTotalLatency(time.Hour))

	e.advance(9 * time.Second)
	assert.Zero(t, m.ExecutionLatencyPercentile(50), "the 10s bucket is still open")
	e.advance(time.Second)

	slices.Sort(exec)
	slices.Sort(total)
	for _, p := range []float64{0, 25, 50, 75, 90, 95, 99, 99.5, 100} {
		assert.InEpsilon(t, float64(exactPercentile(exec, p)), float64(m.ExecutionLatencyPercentile(p)), 0.016, "exec p%v", p)
		assert.InEpsilon(t, float64(exactPercentile(total, p)), float64(m.TotalLatencyPercentile(p)), 0.016, "total p%v", p)
	}
	assert.Equal(t, sumExec/5000, m.ExecutionLatencyMean(), "means are exact")
	assert.Equal(t, sumTotal/5000, m.TotalLatencyMean())
	assert.Equal(t, m.ExecutionLatencyPercentile(100), m.ExecutionLatencyPercentile(150), "p clamps to 100")

	// the 60s window: 6 buckets of 10s
	e.advance(50 * time.Second)
	assert.NotZero(t, m.ExecutionLatencyMean())
	e.advance(10 * time.Second)
	assert.Zero(t, m.ExecutionLatencyMean(), "aged out")
	assert.Zero(t, m.ExecutionLatencyPercentile(99))
}

// TestLatencyPercentilesOverTheWholeRange records latencies from 1 ns to past the clamp
// (2^42 ns, 73 minutes): every percentile stays within the histogram's accuracy of the
// recorded value at its rank, on 32-bit platforms too (make test runs this package with
// GOARCH=386), where values above 2^31 ns (2.1 s) must not overflow.
func TestLatencyPercentilesOverTheWholeRange(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	var recorded []time.Duration
	var sum time.Duration
	for shift := range 45 {
		for _, f := range []int64{1, 3} {
			d := time.Duration(f << shift)
			m.MarkComplete(result(Success).withExecuted(false).withExecutionLatency(d).WithTotalLatency(d))
			recorded, sum = append(recorded, min(d, maxValue)), sum+d // the histogram clamps, the mean does not
		}
	}
	e.advance(10 * time.Second)
	slices.Sort(recorded)
	for _, p := range []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.5, 100} {
		want := float64(exactPercentile(recorded, p))
		assert.InEpsilon(t, want, float64(m.ExecutionLatencyPercentile(p)), 0.016, "exec p%v", p)
		assert.InEpsilon(t, want, float64(m.TotalLatencyPercentile(p)), 0.016, "total p%v", p)
	}
	assert.Equal(t, time.Duration(63<<36+1<<35-1), m.ExecutionLatencyPercentile(100), "the midpoint of the clamp's bin")
	assert.Equal(t, time.Duration(1), m.ExecutionLatencyPercentile(0), "exact below 64 ns")
	assert.Equal(t, sum/time.Duration(len(recorded)), m.ExecutionLatencyMean(), "means are exact")
}

func TestLatencyWindowMergesBuckets(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	for i := range 3 {
		m.MarkComplete(result(Success).withExecuted(false).
			withExecutionLatency(time.Duration(i+1) * 100 * time.Millisecond).WithTotalLatency(time.Second))
		e.advance(10 * time.Second)
	}
	assert.Equal(t, 200*time.Millisecond, m.ExecutionLatencyMean())
	assert.InEpsilon(t, float64(100*time.Millisecond), float64(m.ExecutionLatencyPercentile(0)), 0.016)
	assert.InEpsilon(t, float64(300*time.Millisecond), float64(m.ExecutionLatencyPercentile(100)), 0.016)

	var wg sync.WaitGroup // concurrent readers share the lazily merged view
	for range 4 {
		wg.Go(func() { assert.NotZero(t, m.TotalLatencyPercentile(50)) })
	}
	wg.Wait()
}

func TestRollingPercentileEnabledIsDynamic(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	e.mem.Set("hystrix.command.K.metrics.rollingPercentile.enabled", "false")
	m.MarkComplete(result(Success).withExecuted(false).withExecutionLatency(time.Second))
	e.advance(10 * time.Second)
	assert.Zero(t, m.ExecutionLatencyMean())
	e.mem.Set("hystrix.command.K.metrics.rollingPercentile.enabled", "true")
	m.MarkComplete(result(Success).withExecuted(false).withExecutionLatency(time.Second))
	e.advance(10 * time.Second)
	require.Equal(t, time.Second, m.ExecutionLatencyMean())
	assert.Equal(t, int64(2), m.CumulativeCount(Success), "counts do not depend on it")
}
