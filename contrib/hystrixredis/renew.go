package hystrixredis

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// renewScript records the instance's demand (permits per second wanted) with an expiry,
// drops the entries of instances that stopped renewing and returns the instance's share
// of the rate, proportional to its demand among the live ones, with their count: one
// atomic call, no read-modify-write between instances.
//
//go:embed renew.lua
var renewSource string

var renewScript = redis.NewScript(renewSource)

// renewer is the state of the renewal goroutine.
type renewer struct {
	last    time.Time // when the last renewal was sent: the demand counts from it
	seen    int       // instances live at the last renewal
	failing bool      // the last renewal failed (logged once)
}

// run renews the share every lease period until ctx ends. A renewal that panics is
// logged and counts as failed: the limiter goes on.
func (l *Limiter) run(ctx context.Context) {
	r := renewer{last: l.clk.Now()}
	for {
		sent := l.clk.Now()
		l.renewOnce(ctx, &r, sent)
		if ctx.Err() != nil {
			return
		}
		if wait := l.cfg.LeasePeriod - l.clk.Since(sent); wait > 0 {
			t := l.clk.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C():
			}
		}
	}
}

// renewOnce renews the share with the demand since the last renewal, within the lease's
// time left (half a lease period at most, or when there is no lease).
func (l *Limiter) renewOnce(ctx context.Context, r *renewer, sent time.Time) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("hystrixredis: renewing the share panicked; the limiter goes on", "key", l.cfg.Key,
				"instance", l.cfg.Instance, "panic", p)
			r.failing = true
		}
	}()
	demand := float64(l.asked.Swap(0)) / max(sent.Sub(r.last).Seconds(), 1e-3)
	r.last = sent
	within := l.cfg.LeasePeriod / 2
	if left := l.left(); left > 0 {
		within = min(within, left)
	}
	share, live, err := l.renew(ctx, demand, within)
	if err == nil {
		if live < r.seen {
			// Fewer instances than last time: the others have not renewed yet (Redis
			// restarted empty), or one died. Growing now could hand out the budget twice;
			// the next renewal, with the count settled, grows.
			share = min(share, math.Float64frombits(l.share.Load()))
		}
		if !l.lease(share, sent) {
			err = fmt.Errorf("hystrixredis: the renewal answered after the lease's end (%v)", l.clk.Since(sent))
		} else {
			r.seen = live
			l.renewed.Add(1)
		}
	}
	switch {
	case err == nil:
		if r.failing {
			slog.Info("hystrixredis: share renewed again", "key", l.cfg.Key, "instance", l.cfg.Instance, "share", share)
			r.failing = false
		}
	case ctx.Err() != nil:
	default:
		if !r.failing {
			slog.Warn("hystrixredis: renewing the share failed; keeping it until the lease expires",
				"key", l.cfg.Key, "instance", l.cfg.Instance, "leaseLeft", l.left(), "error", err)
			r.failing = true
		}
		l.expireIfDue()
	}
}

// renew runs the renewal script once, within the given time, and returns the share and
// how many instances are live.
func (l *Limiter) renew(ctx context.Context, demand float64, within time.Duration) (share float64, live int, err error) {
	ctx, cancel := context.WithTimeout(ctx, within)
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
