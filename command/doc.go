// Package command runs calls to dependencies the way Netflix Hystrix's HystrixCommand
// and HystrixObservableCommand do: behind a circuit breaker, an isolation (semaphore,
// goroutine pool, or beyond Hystrix an adaptive concurrency limit), a timeout and a
// fallback, with every outcome published to metrics.
//
// Define a command key once, at start-up, and keep its Kind; each call is a command of
// that Kind:
//
//	getUser, err := command.Define[string](command.Setter{CommandKey: "GetUser", GroupKey: "Users"})
//	if err != nil {
//		return err // a misspelt property or a bad value, named
//	}
//	name, err := getUser.New(run).WithFallback(fallback).Execute(ctx)
//
// Main types:
//
//   - Kind[T] (Define) and StreamKind[T] (DefineStream): a command key checked once,
//     where it is defined. New on the Kind makes its commands; Kind.ExecutePooled(ctx, run)
//     runs one on an execution the Kind reuses (no allocation under SEMAPHORE; run's
//     context is valid until run returns). The functions New and NewStream define a key
//     at its first use instead: an invalid Setter then fails each execution.
//   - Command[T]: run produces one value; an optional fallback recovers failures.
//     Commands are single use.
//   - Stream[T]: construct produces an rxgo.Observable of many values; SEMAPHORE
//     isolation only (a stream key with THREAD isolation in code is an error).
//   - Setter: command, group and thread-pool keys, properties set in code, classifier.
//   - Runtime: the registries (config, metrics, breakers, pools, hooks, clock, logger)
//     and the per-key state; Default for the process, NewRuntime for another.
//   - Error: failure type, command key, cause and fallback error, with a sentinel per
//     failure type (errors.Is(err, ErrTimeout)); BadRequest marks errors that are the
//     caller's fault; a panic becomes a *PanicError with its stack.
//   - Classifier: decides per error whether it is a failure, a bad request or a business
//     outcome that counts as success (so it never trips the breaker).
//
// # Doors
//
// Execute blocks until the outcome. Queue returns a Future (and, as its error, a short
// circuit or rejection known at once), Observe a hot observable that replays the outcome,
// ToObservable a cold one that executes at each subscription, Values an iter.Seq2. Under
// SEMAPHORE and ADAPTIVE isolation Queue and Observe run the command on the caller's
// goroutine before they return, as Hystrix's queue() and observe() do; they return before
// the outcome only under THREAD isolation (once the pool took the run) and for a key whose
// chain waits (a retry's backoff, hedges, a rate-limit wait, an adaptive queue). The first
// door claims a command; a later one gets a BAD_REQUEST_EXCEPTION (Observe called again
// returns the same observable).
//
// # Isolation, timeouts and cancellation
//
// THREAD isolation, the default, runs run on a worker of the key's goroutine pool (10 per
// thread-pool key, no queue): at the timeout the caller gets the fallback and the late run
// is abandoned. SEMAPHORE and ADAPTIVE isolation run it on the caller's goroutine: the
// caller gets the outcome when run returns, TIMEOUT if the timeout passed first, so run
// must honour its context.
//
// The context given to run carries the caller's values and ends when the timeout fires
// (with execution.isolation.thread.interruptOnTimeout), when the caller's context ends,
// or when a Future is cancelled with interruptOnFutureCancel; with New, never merely
// because run returned, so a value tied to it (an HTTP response body) stays usable after
// Execute. A stream's construct context ends with its subscription.
//
// When the caller's context ends before the outcome (or a subscription ends, or a Future
// is cancelled) the command records CANCELLED, calls onUnsubscribe and returns the
// context's error; IsExecutionComplete stays false, as in Hystrix.
//
// # Request cache
//
// With a cache key (WithCacheKey), requestCache.enabled and a request context
// (cache.NewRequestContext), the first command of a (key, cache key) pair in the request
// runs and the others, queued or concurrent, replay its value or error with
// RESPONSE_FROM_CACHE; of queued duplicates the first queued runs. ToObservable takes the
// request context from the subscription: subscribe with Observe(rxgo.WithContext(ctx)).
//
// # Beyond Hystrix
//
// Properties switch on, per key and at run time: retries and hedges within a budget
// (retry.*, hedge.*, budget.*; WithoutRetry, WithoutHedge, RetryAfter), a rate limiter
// (rateLimit.*; WithRateLimiters), fault injection (faultInjection.*), graded throttling
// (throttle.*), ADAPTIVE isolation (execution.isolation.adaptive.*; adaptive.WithCriticality) and
// stream limits (stream.*; StreamEstablished, Stream.WithResume). A key pays nothing for
// a stage it does not use.
//
// The repository's README is the guide and its docs/ the reference (docs/errors.md,
// docs/commands-and-chain.md for the chain of stages); command/DESIGN.md says how the
// package works inside and how to add a stage.
package command
