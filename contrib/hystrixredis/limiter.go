package hystrixredis

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rxhystrix/rxhystrix/ratelimit"
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
	// LeaseTTL is how long a share holds without a renewal (default 3 lease periods):
	// while Redis is unreachable the instance keeps its share this long.
	LeaseTTL time.Duration
	// Fallback is the instance's share, in permits per second, once its lease has expired
	// without a renewal (Redis unreachable): typically Rate divided by the instances
	// expected, so that the fleet stays near Rate.
	Fallback float64
}

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
	case c.LeaseTTL < c.LeasePeriod:
		return fmt.Errorf("hystrixredis: LeaseTTL %v is shorter than LeasePeriod %v", c.LeaseTTL, c.LeasePeriod)
	}
	return nil
}

// renewScript records the instance's demand (permits per second wanted) with an expiry,
// drops the entries of instances that stopped renewing and returns the instance's share
// of the rate, proportional to its demand among the live ones, with their count: one
// atomic call, no read-modify-write between instances.
//
//go:embed renew.lua
var renewSource string

var renewScript = redis.NewScript(renewSource)

// Limiter is a ratelimit.Limiter for one instance's share of a fleet-wide rate (see the
// package doc). Reserve and Cancel read only local memory; a goroutine renews the share.
type Limiter struct {
	cfg    Config
	client redis.UniversalClient
	local  gcra

	asked   atomic.Int64 // Reserve calls since the last renewal: the demand
	share   atomic.Uint64
	leased  atomic.Bool // the share is a lease (not the fallback)
	renewed atomic.Int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewLimiter starts the instance's part in the limit of cfg: until its first renewal
// (at once, in the background) it grants the fallback share. Close stops it; the client
// stays the caller's.
func NewLimiter(client redis.UniversalClient, cfg Config) (*Limiter, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	l := &Limiter{cfg: cfg, client: client}
	l.local.burst = int64(cfg.Burst)
	l.setShare(cfg.Fallback)
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.wg.Go(func() { l.run(ctx) })
	return l, nil
}

// Reserve asks for one permit of the instance's share (ratelimit.Limiter); it never
// waits for Redis.
func (l *Limiter) Reserve(now, maxWait time.Duration) (time.Duration, bool) {
	l.asked.Add(1)
	return l.local.reserve(int64(now), int64(maxWait))
}

// Cancel gives back a permit Reserve granted with a wait (ratelimit.Limiter).
func (l *Limiter) Cancel(time.Duration) { l.local.cancel() }

// Share returns the instance's share now, in permits per second, and whether it is
// leased (false: the fallback).
func (l *Limiter) Share() (float64, bool) {
	return math.Float64frombits(l.share.Load()), l.leased.Load()
}

// Renewals returns how many renewals succeeded.
func (l *Limiter) Renewals() int64 { return l.renewed.Load() }

// Close stops renewing. It is idempotent.
func (l *Limiter) Close() error {
	l.cancel()
	l.wg.Wait()
	return nil
}

func (l *Limiter) setShare(perSecond float64) {
	l.share.Store(math.Float64bits(perSecond))
	l.local.setRate(perSecond)
}

// run renews the share every lease period; when renewals fail for longer than the lease
// TTL it falls back to the fallback share until one succeeds.
func (l *Limiter) run(ctx context.Context) {
	t := time.NewTicker(l.cfg.LeasePeriod)
	defer t.Stop()
	last := time.Now()
	expires := time.Time{} // the fallback holds until the first renewal
	failing := false
	seen := 0 // instances live at the last renewal
	for {
		start := time.Now()
		demand := float64(l.asked.Swap(0)) / max(start.Sub(last).Seconds(), 1e-3)
		last = start
		share, live, err := l.renew(ctx, demand)
		switch {
		case err == nil:
			if live < seen {
				// Fewer instances than last time: the others have not renewed yet (Redis
				// restarted empty), or one died. Growing now could hand out the budget twice;
				// the next renewal, with the count settled, grows.
				share = min(share, math.Float64frombits(l.share.Load()))
			}
			seen = live
			l.setShare(share)
			l.leased.Store(true)
			l.renewed.Add(1)
			expires = start.Add(l.cfg.LeaseTTL)
			if failing {
				slog.Info("hystrixredis: share renewed again", "key", l.cfg.Key, "instance", l.cfg.Instance, "share", share)
				failing = false
			}
		case ctx.Err() != nil:
			return
		default:
			if !failing {
				slog.Warn("hystrixredis: renewing the share failed; keeping it until the lease expires",
					"key", l.cfg.Key, "instance", l.cfg.Instance, "error", err)
				failing = true
			}
			if l.leased.Load() && !time.Now().Before(expires) {
				l.setShare(l.cfg.Fallback)
				l.leased.Store(false)
				slog.Warn("hystrixredis: lease expired, using the fallback share", "key", l.cfg.Key,
					"instance", l.cfg.Instance, "share", l.cfg.Fallback)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// renew runs the renewal script once, within half a lease period, and returns the share
// and how many instances are live.
func (l *Limiter) renew(ctx context.Context, demand float64) (share float64, live int, err error) {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.LeasePeriod/2)
	defer cancel()
	// The demand floor gives an idle instance a small share, so its first calls are not
	// all refused until its next renewal.
	res, err := renewScript.Run(ctx, l.client, []string{l.cfg.Key}, l.cfg.Instance,
		strconv.FormatFloat(max(demand, 1), 'f', 3, 64), l.cfg.LeaseTTL.Milliseconds(),
		strconv.FormatFloat(l.cfg.Rate, 'f', 3, 64)).Slice()
	if err != nil {
		return 0, 0, err
	}
	if len(res) != 2 {
		return 0, 0, fmt.Errorf("hystrixredis: renewal answered %v", res)
	}
	text, _ := res[0].(string)
	n, _ := res[1].(int64)
	share, err = strconv.ParseFloat(text, 64)
	return share, int(n), err
}

var _ ratelimit.Limiter = (*Limiter)(nil)
