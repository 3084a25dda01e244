package command

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// An ADAPTIVE key under the breaker's defaults sheds 40 of 41 calls while one holds its
// only permit: the refusals say nothing about the dependency, so the breaker stays
// closed and the next call runs. (Counted as errors, as before, they opened it: 40 of 41
// over the requestVolumeThreshold of 20.)
func TestSheddingUnderOverloadDoesNotOpenTheBreaker(t *testing.T) {
	e := newEnv(t)
	s := e.adaptiveSetter("S", "1")
	done := holdOne(context.Background(), s)
	for range 40 {
		cmd := New(s, value("never"))
		_, err := cmd.Execute(context.Background())
		require.ErrorIs(t, err, ErrAdaptiveRejected)
	}
	require.NoError(t, done())
	e.tick(time.Second)
	h := e.key("S").metrics.HealthCounts()
	assert.Equal(t, int64(1), h.TotalRequests, "only the admitted call counts")
	assert.Zero(t, h.ErrorCount)

	cmd := New(s, value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.False(t, cmd.IsCircuitBreakerOpen())
	assert.Equal(t, []int64{40}, e.counts("S", metrics.AdaptiveRejected))
	e.assertIdle("S")
}

// A dependency that fails every call opens the breaker behind ADAPTIVE on the same call
// as behind SEMAPHORE: the requestVolumeThreshold's, at the breaker's defaults.
func TestADependencyDownOpensTheBreakerBehindAdaptiveAsBehindSemaphore(t *testing.T) {
	opensAt := func(e *env, s Setter) int {
		for n := 1; n <= 100; n++ {
			cmd := New(s, failing(errBoom)).WithFallback(fallbackValue("fb"))
			_, err := cmd.Execute(context.Background())
			require.NoError(t, err)
			if cmd.IsResponseShortCircuited() {
				return n
			}
			e.tick(500 * time.Millisecond) // one health snapshot per call
		}
		return 0
	}
	e := newEnv(t)
	sem := opensAt(e, e.setter("SEM"))
	ada := opensAt(e, e.adaptiveSetter("ADA", "10"))
	assert.Equal(t, 21, sem, "20 failures (requestVolumeThreshold), then short circuits")
	assert.Equal(t, sem, ada)
	e.assertIdle("SEM")
	e.assertIdle("ADA")
}
