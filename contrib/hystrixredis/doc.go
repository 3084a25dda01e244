// Package hystrixredis is a global rate limit for a fleet, coordinated through Redis: a
// ratelimit.Limiter (for the rate limiter stage, or any caller) whose rate is this
// instance's share of a limit set for the whole fleet.
//
// Each instance holds a lease on a share of the global rate, proportional to its recent
// demand (the Reserve calls of the last lease period, granted or not), and admits calls
// against it locally: Reserve and Cancel read and write only memory (a token bucket
// written as GCRA, moved by compare-and-swap) and the clock, never Redis, so no call
// waits on Redis. A goroutine renews the share every lease period with one Lua script,
// atomic on the server: it records the instance's demand with an expiry, drops the
// instances that stopped renewing and returns rate x demand / live demand. No instance
// reads, computes and writes back, so there is no read-modify-write race between them.
//
//	every lease period (one EVALSHA per instance and key):
//	    demand of the last period --> renew.lua: HSET <key> <instance> "<demand> <expiry>",
//	        HGETALL, HDEL the expired, PEXPIRE --> share = rate x demand / sum of live demands
//	    --> the local bucket's rate, leased until LeaseTTL after the renewal was sent
//	Reserve(now, maxWait) --> lease expired on the instance's clock? fallback share
//	    --> local bucket only
//
// Redis is used instances x keys / lease period times a second, whatever the request
// rate. The demand a share follows is a period old and the others' a period older at
// most: shares follow a change of demand within 3 lease periods (measured below).
//
// # A lease ends on time
//
// A share is leased until LeaseTTL (default 3 lease periods, at least 1.5) after the
// renewal that leased it was sent, on the instance's own clock: Reserve checks that
// time itself, so whatever a Redis call is doing (hung, slow, cut off, refused) the
// instance grants its Fallback share (typically Rate divided by the instances expected)
// from then until a renewal succeeds. Each renewal must answer within what is left of
// the lease (half a lease period at most); an answer that comes later leases nothing.
// A renewal that finds fewer live instances than the last one (Redis restarted empty
// and the others have not renewed yet, or an instance died) does not grow the share that
// round, so a restart does not hand the budget out twice. When the share goes up, the
// permits spent at the old rate count at the new one (at most a burst and the longest
// wait of debt is kept): a limiter's first share, from a period with almost no demand,
// is tiny, and its debt counted in that share's interval would otherwise refuse the
// instance for seconds. A renewal that panics is logged (slog) and counts as failed.
//
// Redis drops a silent instance's demand LeaseTTL after its last renewal ran there, no
// earlier than the instance stops using the lease, so leased shares never overlap. An
// instance cut off from Redis while the others reach it (a partition) then runs on its
// fallback while the others share the whole rate: the fleet admits at most Rate + the
// cut-off instances' min(Fallback, demand) + Burst per instance (what an instance may
// grant at once). With 3 instances, Rate 300, Fallback 100, Burst 5 and the instance of
// demand 45/s cut off: 300 + 45 + 15 = 360 a second. When every instance is cut off the
// fleet admits the sum of min(Fallback, demand), at most Rate with Fallback = Rate / n.
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379",
//		ContextTimeoutEnabled: true, MaxRetries: -1, DialTimeout: 250 * time.Millisecond})
//	l, err := hystrixredis.NewLimiter(client, hystrixredis.Config{
//		Key: "rxhystrix:limit:payments", Instance: hostname,
//		Rate: 300, Burst: 5, Fallback: 100, // 3 instances expected
//	})
//	if err != nil { // a nil client (ErrNilClient), a Config that cannot work
//		return err
//	}
//	defer l.Close()
//
// The client's settings bound the time a renewal takes and how soon shares are leased
// again after Redis comes back. ContextTimeoutEnabled makes a renewal end at its
// deadline (without it a hung call lasts go-redis' ReadTimeout, 3 s by default, and
// its retries: the lease still ends on time, but the next renewal waits, and so does
// Close); MaxRetries -1 retries nothing past it. Once its dials fail, go-redis dials
// again once a second: an instance leases again within a lease period + 1 s +
// DialTimeout after Redis returns.
//
// For the rate limiter stage, Limiters makes one such limiter per rate limiter group,
// its rate the group's rateLimit.* properties, of the shape command.WithRateLimiters takes:
//
//	rt := command.NewRuntime(command.WithRateLimiters(hystrixredis.Limiters(client,
//		hystrixredis.Config{Key: "rxhystrix:limit:", Instance: hostname, Burst: 5}, 1.0/3)))
//
// Measured with 3 instances on loopback (make e2e-fleet, under -race, 2-core AMD EPYC
// shared with other builds; global 300/s, lease period 500 ms, LeaseTTL 1.5 s, demand
// 70/20/10 % of 450/s, the client above; 4 runs): the fleet admitted 294.7-301.7/s,
// 202-211/60-61/30-31 per instance; when the demands turned to 10/20/70 % the third
// instance's share passed 60 % of the rate in 496 ms-1.00 s; Redis ran 6 script calls a
// second (3 instances x 1 key / 500 ms), each running 4 commands inside (TIME, HSET,
// HGETALL, PEXPIRE), which INFO commandstats counts too; admission took 16-59 µs at the
// 99th percentile whether Redis was up or stopped. With Redis stopped (connections
// refused) for 10 s the fleet admitted 244.4-245.0/s (the leases, then the fallbacks);
// shares were leased again 11-98 ms after it returned. With Redis hung (SIGSTOP) for 10 s
// every instance was on its fallback 1.495-1.538 s after its last renewal (two of them on
// go-redis' default client, whose calls ignore their deadline), the fleet at most 302-304
// in any 1 s window, and leased again 7-82 ms after Redis resumed; with one instance's
// connection alone hung (demand 45/s), it fell back 1.498-1.51 s after its last renewal,
// the others took the whole rate (229-233 and 67 per second, the cut-off one 45) and
// the fleet admitted at most 346-349 in any 1 s window (margin: 360). Through the rate
// limiter stage (3 runtimes with Limiters, rateLimit.permitsPerSecond 300, the same
// demands) the fleet ran 299.8-300.8/s, 210/60/30-31 per instance.
//
// The module is separate from rxhystrix, so that only its users link the Redis client.
package hystrixredis
