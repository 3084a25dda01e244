package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTargetsBehaveAlike checks that every library is configured the same way: the run's
// value comes back, a failure gets the fallback's, failing traffic opens the breaker, and
// an open breaker answers with the fallback without calling the run.
func TestTargetsBehaveAlike(t *testing.T) {
	ctx := context.Background()
	for _, lib := range Libraries() {
		t.Run(lib.Name, func(t *testing.T) {
			tg := lib.New("test-alike-"+lib.Name, Defaults())
			defer tg.Close()

			v, err := tg.Do(ctx, Succeed)
			require.NoError(t, err)
			assert.Equal(t, Answer, v)

			v, err = tg.Do(ctx, Fail)
			require.NoError(t, err)
			assert.Equal(t, FallbackAnswer, v)

			start := time.Now()
			require.NoError(t, Trip(ctx, tg, 5*time.Second))
			assert.Less(t, time.Since(start), 2*time.Second, "20 failing calls open the breaker within a health interval")

			var calls atomic.Int32
			v, err = tg.Do(ctx, func(ctx context.Context) (int, error) {
				calls.Add(1)
				return Succeed(ctx)
			})
			require.NoError(t, err)
			assert.Equal(t, FallbackAnswer, v, "an open breaker answers with the fallback")
			assert.Zero(t, calls.Load(), "an open breaker does not call the run")
		})
	}
}

// TestTripGivesUp checks that Trip reports a breaker that never opens.
func TestTripGivesUp(t *testing.T) {
	s := Defaults()
	s.RequestVolumeThreshold = NeverTrip
	tg := NewCep21("test-trip-never", s)
	defer tg.Close()
	require.ErrorContains(t, Trip(context.Background(), tg, 50*time.Millisecond), "did not open")
}

// TestAfexLoggerCountsDrops checks the parsing of hystrix-go's drop message.
func TestAfexLoggerCountsDrops(t *testing.T) {
	c := afexCountsOf("test-logger")
	afexLogger{}.Printf("hystrix: metrics channel (test-logger) is at capacity")
	afexLogger{}.Printf("hystrix-go: opening circuit test-logger")
	assert.Equal(t, int64(1), c.dropped.Load())
}
