// Package observable adds to RxGo v2 the RxJava-style pieces rxhystrix needs and RxGo
// lacks: typed deferred sources, a timeout that emits an error item, terminate and
// unsubscribe callbacks, a replaying cache, a publish bus (subject), clock-aligned time
// buckets and futures.
//
// Every operator returns a genuine rxgo.Observable built on rxgo.Defer: a producer that
// observes its source with the subscriber's context (a child of it, cancelled when the
// producer returns), selects on that context for every send, and so composes with any
// RxGo operator and leaves no goroutine behind once the subscription ends. Subscribe
// with rxgo.WithContext and a context that is always cancelled eventually, as RxGo
// requires anyway.
//
// Main types and functions:
//
//   - Defer, Error: one value or one error item per subscription, without reflection.
//   - Timeout: ErrTimeout as an error item after d of clock time, source cancelled.
//   - DoOnTerminate, DoOnUnsubscribe: exactly-once callbacks for the two ways a
//     subscription ends.
//   - Cache: one run of the source, replayed to every subscriber (the request cache).
//   - Bus: many publishers, many subscribers; Publish never blocks nor allocates, and
//     counts what a full subscriber queue had to drop.
//   - Queue: a subscriber's bounded lock-free ring (many producers, one consumer that
//     polls it and parks on it when idle).
//   - Buckets: folds a Source into clock-aligned buckets and emits each one, empty
//     ones included, at its boundary.
//   - Future, ToFuture: the first value or error of a subscription, for blocking callers.
//
// How data flows through the metrics pipeline built from these parts:
//
//	commands ──Publish(v)──▶ Bus[T] ──Subscribe(ctx)──▶ Buckets(width, clk)
//	   (never block)          │  per-subscriber      (polls the queue, plain Go fold
//	                          │  lock-free Queue      per item, emits at each boundary)
//	                          ▼                              │ rxgo.Item per bucket
//	                  Dropped() when full                    ▼
//	                                           rxgo Scan (sliding window) ──▶ consumers
//
// and through one command:
//
//	Defer(run) ─▶ Timeout(d, clk) ─▶ OnErrorResumeNext(fallback) ─▶ DoOnTerminate(cleanup)
//	          ─▶ Cache (request cache) ─▶ ToFuture / Observe(rxgo.WithContext(ctx))
//
// Deterministic tests on a clock.Fake: timers are armed by producer goroutines after the
// subscription, so call clk.BlockUntil(n) after subscribing and before the first
// clk.Advance (Buckets subscribes to its Source before arming, so this also guarantees no
// published item is missed); Buckets then catches up with any later Advance by itself.
// Read the buckets a boundary emits before publishing items meant for the next bucket:
// items still queued when a boundary is processed count in the bucket that ends.
package observable
