package ratelimit

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func bucket(t testing.TB, perSec float64, burst int) *Bucket {
	b, err := NewBucket(Rate{PerSecond: perSec, Burst: burst})
	require.NoError(t, err)
	return b
}

func TestBucketGrantsItsBurstThenOneAnInterval(t *testing.T) {
	b := bucket(t, 10, 3) // an interval of 100 ms
	now := 5 * time.Second
	for i := range 3 {
		wait, ok := b.Reserve(now, 0)
		require.True(t, ok, "permit %d of the burst", i)
		assert.Zero(t, wait)
	}
	wait, ok := b.Reserve(now, 0)
	assert.False(t, ok, "the burst is spent")
	assert.Equal(t, 100*time.Millisecond, wait, "the next permit is one interval away")

	wait, ok = b.Reserve(now+40*time.Millisecond, 0)
	assert.False(t, ok)
	assert.Equal(t, 60*time.Millisecond, wait, "Retry-After shrinks as time passes")

	wait, ok = b.Reserve(now+40*time.Millisecond, 60*time.Millisecond)
	assert.True(t, ok, "a wait within maxWait reserves the permit")
	assert.Equal(t, 60*time.Millisecond, wait)
	wait, ok = b.Reserve(now+40*time.Millisecond, 100*time.Millisecond)
	assert.False(t, ok, "the reserved permit is taken: the next is one more interval away")
	assert.Equal(t, 160*time.Millisecond, wait)

	b.Cancel(now + 50*time.Millisecond)
	wait, ok = b.Reserve(now+50*time.Millisecond, 50*time.Millisecond)
	assert.True(t, ok, "a cancelled reservation is free again")
	assert.Equal(t, 50*time.Millisecond, wait)

	wait, ok = b.Reserve(now+time.Hour, 0)
	assert.True(t, ok)
	assert.Zero(t, wait)
	for range 2 {
		_, ok = b.Reserve(now+time.Hour, 0)
		assert.True(t, ok, "a quiet hour refills the burst")
	}
	_, ok = b.Reserve(now+time.Hour, 0)
	assert.False(t, ok, "and no more than the burst")
}

// Offered 1,000 a second for 10 s at 300 a second: 3,000 admitted, plus the burst the
// bucket starts with. A burst of 1 keeps no credit between arrivals: a permit free at
// 3.33 ms waits for the call at 4 ms, and the next interval counts from there.
func TestBucketAdmitsItsRateOfAnOfferedLoad(t *testing.T) {
	b := bucket(t, 300, 1)
	admitted := 0
	for ms := range 10_000 {
		if _, ok := b.Reserve(time.Duration(ms)*time.Millisecond, 0); ok {
			admitted++
		}
	}
	assert.Equal(t, 2500, admitted, "burst 1: one every 4 ms")
	for _, burst := range []int{2, 10, 30} {
		b := bucket(t, 300, burst)
		admitted := 0
		for ms := range 10_000 {
			if _, ok := b.Reserve(time.Duration(ms)*time.Millisecond, 0); ok {
				admitted++
			}
		}
		assert.InDelta(t, 3000+burst-1, admitted, 1, "burst %d", burst)
		assert.InDelta(t, 3000, admitted, 60, "within 2 %% (burst %d)", burst)
	}
}

// Callers racing for the same bucket get exactly the permits it has: the burst at one
// instant, one an interval later.
func TestBucketIsExactUnderContention(t *testing.T) {
	const burst, goroutines, tries = 1000, 8, 2000
	for round := range 20 {
		b := bucket(t, 1000, burst)
		now := time.Duration(round) * time.Hour
		var granted, refused atomic.Int64
		var waited atomic.Int64
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				for range tries {
					wait, ok := b.Reserve(now, 10*time.Millisecond)
					switch {
					case !ok:
						refused.Add(1)
					case wait > 0:
						waited.Add(1)
					default:
						granted.Add(1)
					}
				}
			})
		}
		wg.Wait()
		require.EqualValues(t, burst, granted.Load(), "round %d: the burst, no more", round)
		require.EqualValues(t, 10, waited.Load(), "round %d: 10 ms of reservations at 1 a ms", round)
		require.EqualValues(t, goroutines*tries-burst-10, refused.Load())
	}
}

func TestRateValidate(t *testing.T) {
	for _, r := range []Rate{{0, 1}, {-1, 1}, {1, 0}, {1e-12, 1000}} {
		_, err := NewBucket(r)
		assert.Error(t, err, "%+v", r)
	}
	assert.NoError(t, Rate{PerSecond: 0.5, Burst: 1}.validate())
	assert.Equal(t, int64(3333333), Rate{PerSecond: 300, Burst: 1}.interval())
}

func BenchmarkBucketReserve(b *testing.B) {
	l := bucket(b, 1e9, 1) // never refuses: every call is a grant
	for i := range b.N {
		l.Reserve(time.Duration(i), 0)
	}
}

func BenchmarkBucketReserveParallel(b *testing.B) {
	l := bucket(b, 1e9, 1)
	var now atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Reserve(time.Duration(now.Add(1)), 0)
		}
	})
}
