package bulkhead

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSemaphoreDynamicLimit(t *testing.T) {
	limit := newKnob(2)
	s := &Semaphore{limit: limit}

	require.True(t, s.TryAcquire())
	require.True(t, s.TryAcquire())
	assert.False(t, s.TryAcquire(), "limit 2 reached")
	assert.Equal(t, 2, s.InUse())

	limit.Set(1) // downward: 2 in use above the new limit
	s.Release()
	assert.Equal(t, 1, s.InUse())
	assert.False(t, s.TryAcquire(), "still at the lowered limit")
	s.Release()
	assert.True(t, s.TryAcquire(), "below the lowered limit again")

	limit.Set(3) // upward: takes effect on the next call
	assert.True(t, s.TryAcquire())
	assert.True(t, s.TryAcquire())
	assert.False(t, s.TryAcquire())
	assert.Equal(t, 3, s.InUse())

	limit.Set(0)
	for range 3 {
		s.Release()
	}
	assert.False(t, s.TryAcquire(), "limit 0 rejects everything")
	assert.Equal(t, 0, s.InUse())
}

func TestSemaphoreReleaseWithoutAcquirePanics(t *testing.T) {
	s := &Semaphore{limit: newKnob(1)}
	assert.PanicsWithValue(t, "isolation: Semaphore.Release without a matching TryAcquire", s.Release)
	assert.Equal(t, 0, s.InUse(), "the failed release leaves the count intact")
	assert.True(t, s.TryAcquire())
}

// TestSemaphoreNeverExceedsLimitUnderContention: many goroutines acquire flat out, each
// holding its permit across a scheduler yield (as work would), until the contested
// outcomes happened: the limit was reached and an acquire was refused at it (at most 20
// rounds of 2,000 tries each). Holders never exceed the limit and every permit comes back.
func TestSemaphoreNeverExceedsLimitUnderContention(t *testing.T) {
	const limit, goroutines, tries = 3, 16, 2000
	s := &Semaphore{limit: newKnob(limit)}
	var holding, maxHolding, acquired, refused atomic.Int64
	for round := 0; round < 20 && (round == 0 || maxHolding.Load() < limit || refused.Load() == 0); round++ {
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for range tries {
					if !s.TryAcquire() {
						refused.Add(1)
						continue
					}
					acquired.Add(1)
					n := holding.Add(1)
					for {
						m := maxHolding.Load()
						if n <= m || maxHolding.CompareAndSwap(m, n) {
							break
						}
					}
					runtime.Gosched()
					holding.Add(-1)
					s.Release()
				}
			})
		}
		wg.Wait()
	}
	assert.Equal(t, int64(limit), maxHolding.Load(), "the limit was reached, never exceeded")
	assert.Positive(t, refused.Load(), "acquires were refused at the limit")
	assert.Positive(t, acquired.Load())
	assert.Equal(t, 0, s.InUse())
}
