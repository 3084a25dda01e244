package hystrixredis

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/ratelimit"
)

func TestConfigErrors(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Instance: "a", Rate: 1}, "Key and Instance must be set"},
		{Config{Key: "k", Instance: "a"}, "Rate must be above 0"},
		{Config{Key: "k", Instance: "a", Rate: 10, Fallback: 11}, "Fallback must be between 0 and Rate"},
		{Config{Key: "k", Instance: "a", Rate: 10, LeasePeriod: time.Millisecond}, "LeasePeriod must be at least 10ms"},
		{Config{Key: "k", Instance: "a", Rate: 10, LeasePeriod: time.Second, LeaseTTL: 1499 * time.Millisecond}, "shorter than 1.5 x LeasePeriod"},
		{Config{Key: "k", Instance: "a", Rate: 10, Burst: -1}, "Burst must be at least 1"},
	} {
		_, err := NewLimiter(c, tc.cfg)
		assert.ErrorContains(t, err, tc.want)
	}
}

// TestUnreachableRedisGrantsTheFallbackAndNeverBlocks: with Redis unreachable the limiter
// grants its fallback share from the start, and Reserve answers at once.
func TestUnreachableRedisGrantsTheFallbackAndNeverBlocks(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer c.Close()
	l, err := NewLimiter(c, Config{Key: "k", Instance: "a", Rate: 100, Fallback: 10, LeasePeriod: 10 * time.Millisecond})
	require.NoError(t, err)
	defer l.Close()
	share, leased := l.Share()
	assert.Equal(t, 10.0, share)
	assert.False(t, leased)
	granted := 0
	start := time.Now()
	for now := time.Duration(0); now < time.Second; now += time.Millisecond {
		if _, ok := l.Reserve(now, 0); ok {
			granted++
		}
	}
	assert.Equal(t, 10, granted, "10 a second over one second of the caller's clock")
	assert.Less(t, time.Since(start), 100*time.Millisecond, "1,000 calls answered without waiting for Redis")
}

// TestGCRAIsExactUnderContention: callers flat out on many goroutines get exactly the
// permits of the rate over the span of the caller's clock they cover, and a rate
// change applies to the next permit.
func TestGCRAIsExactUnderContention(t *testing.T) {
	var g gcra
	g.burst = 2     // callers' clock readings reach it out of order: one permit of slack
	g.setRate(1000) // 1 ms apart
	var clock atomic.Int64
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				now := clock.Add(int64(100 * time.Microsecond))
				if now > int64(time.Second) {
					return
				}
				if _, ok := g.reserve(now, 0); ok {
					granted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.InDelta(t, 1001, granted.Load(), 1)

	g.setRate(0)
	wait, ok := g.reserve(int64(2*time.Second), int64(time.Minute))
	assert.False(t, ok, "a share of 0 grants nothing")
	assert.Greater(t, wait, time.Minute)
}

// TestGCRAFollowsAShareThatWentUp: a burst spent at a tiny share (the first renewal of a
// limiter made on a key's first call sees almost no demand) must not hold the instance
// back once its share goes up: within a burst of the new interval it grants again.
func TestGCRAFollowsAShareThatWentUp(t *testing.T) {
	var g gcra
	g.burst = 20
	g.setRate(0.5) // 2 s apart
	for range 20 {
		_, ok := g.reserve(0, 0)
		require.True(t, ok, "the burst")
	}
	_, ok := g.reserve(0, 0)
	require.False(t, ok, "the burst is spent: 40 s of debt at the old share")

	g.setRate(100) // 10 ms apart
	_, ok = g.reserve(int64(10*time.Millisecond), 0)
	assert.False(t, ok, "the spent burst still counts, in the new interval")
	granted := 0
	for now := 200 * time.Millisecond; now < 1200*time.Millisecond; now += time.Millisecond {
		if _, ok := g.reserve(int64(now), 0); ok {
			granted++
		}
	}
	// The burst counts as spent at 10 ms: 19 permits earned by 200 ms, then 100 a second.
	assert.InDelta(t, 19+100, granted, 1, "the permits earned since, then the new share")
}

// TestLimitersMakeAGroupsShare: the maker gives each group a limiter of its own Redis key
// whose fallback is the configured part of the group's rate.
func TestLimitersMakeAGroupsShare(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer c.Close()
	makeLimiter := Limiters(c, Config{Key: "rxhystrix:limit:", Instance: "a"}, 0.25)
	l, err := makeLimiter("Payments", ratelimit.Rate{PerSecond: 300, Burst: 10})
	require.NoError(t, err)
	defer l.(*Limiter).Close()
	assert.Equal(t, "rxhystrix:limit:Payments", l.(*Limiter).cfg.Key)
	share, _ := l.(*Limiter).Share()
	assert.Equal(t, 75.0, share)
	_, err = makeLimiter("Bad", ratelimit.Rate{PerSecond: 0, Burst: 1})
	assert.ErrorContains(t, err, "Rate must be above 0")
}
