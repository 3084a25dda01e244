// Package observable adds to RxGo v2 the RxJava-style pieces rxhystrix needs and RxGo
// lacks: typed deferred sources, a timeout that emits an error item, terminate and
// unsubscribe callbacks, a replaying cache and futures.
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
//   - Future, ToFuture: the first value or error of a subscription, for blocking callers.
//
// The metrics windows are not built from operators: completions are folded on the
// caller and the windows are scans over closed buckets in plain Go (see package metrics
// for why). How data flows through one command:
//
//	Defer(run) ─▶ Timeout(d, clk) ─▶ OnErrorResumeNext(fallback) ─▶ DoOnTerminate(cleanup)
//	          ─▶ Cache (request cache) ─▶ ToFuture / Observe(rxgo.WithContext(ctx))
//
// Deterministic tests on a clock.Fake: timers are armed by producer goroutines after the
// subscription, so call clk.BlockUntil(n) after subscribing and before the first
// clk.Advance.
package observable
