package hystrixredis

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config is a global limit and this instance's part in it.
type Config struct {
	// Key is the Redis key of the limit, shared by every instance (a hash of their demands).
	Key string
	// Instance names this instance among those of the limit; unique to it.
	Instance string
	// Rate is the limit of the whole fleet, in permits per second.
	Rate float64
	// Burst is the most permits the instance grants at once after a quiet spell (default
	// 1: none kept between calls; see ratelimit.Rate).
	Burst int
	// LeasePeriod is how often the instance renews its share (default 1 s): one script
	// call to Redis per period.
	LeasePeriod time.Duration
	// LeaseTTL is how long a share holds after the renewal that leased it was sent
	// (default 3 lease periods, at least 1.5): the instance stops using it then, on its
	// own clock, whatever Redis does.
	LeaseTTL time.Duration
	// Fallback is the instance's share, in permits per second, once its lease has expired
	// without a renewal (Redis unreachable): typically Rate divided by the instances
	// expected, so that the fleet stays near Rate.
	Fallback float64
}

// ErrNilClient is returned by NewLimiter (and the makers of Limiters) for a nil client.
var ErrNilClient = errors.New("hystrixredis: the Redis client is nil")

func (c *Config) validate() error {
	if c.LeasePeriod == 0 {
		c.LeasePeriod = time.Second
	}
	if c.LeaseTTL == 0 {
		c.LeaseTTL = 3 * c.LeasePeriod
	}
	if c.Burst == 0 {
		c.Burst = 1
	}
	switch {
	case c.Key == "" || c.Instance == "":
		return errors.New("hystrixredis: Key and Instance must be set")
	case !(c.Rate > 0) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("hystrixredis: Rate must be above 0 and finite, got %v", c.Rate)
	case !(c.Fallback >= 0) || c.Fallback > c.Rate:
		return fmt.Errorf("hystrixredis: Fallback must be between 0 and Rate (%v), got %v", c.Rate, c.Fallback)
	case c.Burst < 1:
		return fmt.Errorf("hystrixredis: Burst must be at least 1, got %d", c.Burst)
	case c.LeasePeriod < 10*time.Millisecond:
		return fmt.Errorf("hystrixredis: LeasePeriod must be at least 10ms, got %v", c.LeasePeriod)
	case c.LeaseTTL < c.LeasePeriod*3/2:
		// A renewal is sent every period and may take half of one: a shorter TTL would
		// let the lease lapse between two renewals that both succeed.
		return fmt.Errorf("hystrixredis: LeaseTTL %v is shorter than 1.5 x LeasePeriod %v", c.LeaseTTL, c.LeasePeriod)
	}
	return nil
}

// isNil reports whether client is nil, or a nil pointer of go-redis' clients.
func isNil(client redis.UniversalClient) bool {
	switch c := client.(type) {
	case nil:
		return true
	case *redis.Client:
		return c == nil
	case *redis.ClusterClient:
		return c == nil
	case *redis.Ring:
		return c == nil
	}
	return false
}
