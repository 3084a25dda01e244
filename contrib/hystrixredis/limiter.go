package hystrixredis

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/ratelimit"
)

// Limiter is a ratelimit.Limiter for one instance's share of a fleet-wide rate (see the
// package doc). Reserve and Cancel read only local memory and the clock; a goroutine
// renews the share.
type Limiter struct {
	cfg    Config
	client redis.UniversalClient
	clk    clock.Clock
	origin time.Time // of clk: expires counts from it
	local  gcra

	asked   atomic.Int64 // Reserve calls since the last renewal: the demand
	share   atomic.Uint64
	leased  atomic.Bool  // the share is a lease (not the fallback)
	expires atomic.Int64 // when the lease ends, ns after origin on clk
	mu      sync.Mutex   // orders a lease against its expiry (lease, expire)
	renewed atomic.Int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewLimiter starts the instance's part in the limit of cfg: until its first renewal
// (at once, in the background) it grants the fallback share. It refuses a nil client
// (ErrNilClient) and a Config that cannot work. Close stops it; the client stays the
// caller's.
func NewLimiter(client redis.UniversalClient, cfg Config) (*Limiter, error) {
	return newLimiter(client, cfg, clock.System())
}

func newLimiter(client redis.UniversalClient, cfg Config, clk clock.Clock) (*Limiter, error) {
	if isNil(client) {
		return nil, ErrNilClient
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	l := &Limiter{cfg: cfg, client: client, clk: clk, origin: clk.Now()}
	l.local.burst = int64(cfg.Burst)
	l.setShare(cfg.Fallback)
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.wg.Go(func() { l.run(ctx) })
	return l, nil
}

// Reserve asks for one permit of the instance's share (ratelimit.Limiter); it never
// waits for Redis. Past the lease's end it grants the fallback share, whatever the
// renewal under way.
func (l *Limiter) Reserve(now, maxWait time.Duration) (time.Duration, bool) {
	l.asked.Add(1)
	l.expireIfDue()
	return l.local.reserve(int64(now), int64(maxWait))
}

// Cancel gives back a permit Reserve granted with a wait (ratelimit.Limiter).
func (l *Limiter) Cancel(time.Duration) { l.local.cancel() }

// Share returns the instance's share now, in permits per second, and whether it is
// leased (false: the fallback).
func (l *Limiter) Share() (float64, bool) {
	l.expireIfDue()
	return math.Float64frombits(l.share.Load()), l.leased.Load()
}

// Renewals returns how many renewals succeeded.
func (l *Limiter) Renewals() int64 { return l.renewed.Load() }

// Close stops renewing and waits for the renewal under way. It is idempotent.
func (l *Limiter) Close() error {
	l.cancel()
	l.wg.Wait()
	return nil
}

func (l *Limiter) setShare(perSecond float64) {
	l.share.Store(math.Float64bits(perSecond))
	l.local.setRate(perSecond)
}

// now returns the time on the limiter's clock, in ns after origin.
func (l *Limiter) now() int64 { return int64(l.clk.Since(l.origin)) }

// left returns how long the lease holds still, 0 if it is not held.
func (l *Limiter) left() time.Duration {
	if !l.leased.Load() {
		return 0
	}
	return time.Duration(max(0, l.expires.Load()-l.now()))
}

// lease makes share the instance's share until LeaseTTL after sent, when the renewal
// that leased it was sent; it reports false, changing nothing, when that time is past.
func (l *Limiter) lease(share float64, sent time.Time) bool {
	end := int64(sent.Add(l.cfg.LeaseTTL).Sub(l.origin))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.now() >= end {
		return false
	}
	l.expires.Store(end)
	l.setShare(share)
	l.leased.Store(true)
	return true
}

// expireIfDue falls back to the fallback share once the lease has ended: two atomic
// loads and a clock reading while it holds.
func (l *Limiter) expireIfDue() {
	if !l.leased.Load() || l.now() < l.expires.Load() {
		return
	}
	l.mu.Lock()
	expired := l.leased.Load() && l.now() >= l.expires.Load() // not leased again meanwhile
	if expired {
		l.setShare(l.cfg.Fallback)
		l.leased.Store(false)
	}
	l.mu.Unlock()
	if expired {
		slog.Warn("hystrixredis: lease expired, using the fallback share", "key", l.cfg.Key,
			"instance", l.cfg.Instance, "share", l.cfg.Fallback)
	}
}

var _ ratelimit.Limiter = (*Limiter)(nil)
