// Package ratelimit is the limiter behind a command key's rate limiter stage
// (rateLimit.* properties, see package command): how many calls a key, or a group of keys,
// may start per second, with a burst.
//
// A Limiter answers at once and never blocks: Reserve either takes a permit now, or
// reserves the next one free if it comes within the caller's bound (the caller then waits
// that long itself, on its own clock, and gives the permit back with Cancel if it stops
// waiting), or refuses and says how long until a permit would be free (what an HTTP
// server puts in Retry-After). Time is the caller's: now is a reading of a monotonic
// clock as an offset from an origin fixed for the limiter's life (package command passes
// the Runtime's clock, so a test drives a limiter with a fake clock).
//
// Bucket is the in-memory Limiter: a token bucket written as GCRA (the generic cell rate
// algorithm). Its whole state is one word, the theoretical arrival time of the next
// permit, moved by compare-and-swap: admission is exact under any number of concurrent
// callers (no permit is granted twice, none is lost), costs no lock and no allocation,
// and the bucket needs no timer to refill.
//
//	b, err := ratelimit.NewBucket(ratelimit.Rate{PerSecond: 300, Burst: 10})
//	wait, ok := b.Reserve(now, 50*time.Millisecond)
//	// ok && wait == 0: go; ok: go after wait (or Cancel); !ok: refused, retry after wait
//
// In a command key's chain the limiter is asked inside the circuit breaker's gate and
// outside isolation (docs/commands-and-chain.md, "The command chain"): a short-circuited
// call spends no permit, and a call waiting for one holds no execution permit. Keys share a limiter
// when they name the same rateLimit.group with the same Rate; command.WithRateLimiters
// replaces Bucket with another Limiter.
//
// The Limiter interface is what another implementation (a share of a fleet-wide rate,
// leased from a shared store in the background) provides: Reserve and Cancel must not
// block on I/O.
package ratelimit
