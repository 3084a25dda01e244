package hystrixredis

import (
	"github.com/redis/go-redis/v9"

	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// Limiters returns a maker of the limiters of rate limiter groups, of the shape of the
// rate limiter stage's limiter factory (command.WithRateLimiters): the group's rate
// (rateLimit.* properties) becomes a fleet-wide rate, shared through Redis under
// base.Key + group. base gives the instance, the lease period and TTL and the local
// burst (base.Rate and base.Fallback are ignored); each instance grants fallbackShare of
// the rate once its lease has expired without Redis (e.g. 1.0/3 for three instances).
// The maker refuses what NewLimiter refuses (a nil client: ErrNilClient). The runtime
// closes the limiters with itself.
func Limiters(client redis.UniversalClient, base Config, fallbackShare float64) func(group string, r ratelimit.Rate) (ratelimit.Limiter, error) {
	return func(group string, r ratelimit.Rate) (ratelimit.Limiter, error) {
		cfg := base
		cfg.Key += group
		cfg.Rate = r.PerSecond
		cfg.Fallback = r.PerSecond * fallbackShare
		return NewLimiter(client, cfg)
	}
}
