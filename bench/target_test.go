package bench

import (
	"context"
	"fmt"
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
			tg := lib.New(fmt.Sprintf("test-alike-%s-%d", lib.Name, opened.Add(1)), Defaults()) // hystrix-go keys are process-wide
			defer tg.Close()

			v, err := tg.Do(ctx, Succeed)
			require.NoError(t, err)
			assert.Equal(t, Answer, v)

			v, err = tg.Do(ctx, Fail)
			require.NoError(t, err)
			assert.Equal(t, FallbackAnswer, v)

			// With the two calls above, the 18th failing call is the 20th request: the
			// request volume threshold, at 95 % errors.
			const volume = 20 - 2
			tr, err := Trip(ctx, tg, 5*time.Second)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(tr.Failures), volume, "no breaker opens below the request volume threshold")
			if lib.Name == "rxhystrix" {
				// Hystrix: the breaker reads health snapshots taken every 500 ms (plus the
				// time of one call and the timer's lateness on a busy machine).
				assert.Less(t, tr.Open.Sub(tr.Failures[volume-1]), 650*time.Millisecond,
					"open within a health interval of the 20th request (%d failures)", len(tr.Failures))
			} else {
				assert.Equal(t, volume, len(tr.Failures), "the breaker decides on every call: open after the 20th request")
			}

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
	_, err := Trip(context.Background(), tg, 50*time.Millisecond)
	require.ErrorContains(t, err, "did not open")
}

// TestAfexLoggerCountsDrops checks the parsing of hystrix-go's drop message.
func TestAfexLoggerCountsDrops(t *testing.T) {
	c := afexCountsOf("test-logger")
	afexLogger{}.Printf("hystrix: metrics channel (test-logger) is at capacity")
	afexLogger{}.Printf("hystrix-go: opening circuit test-logger")
	assert.Equal(t, int64(1), c.dropped.Load())
}
