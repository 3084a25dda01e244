// Package collapser batches many concurrent requests into one command, the way Netflix
// Hystrix's HystrixCollapser and HystrixObservableCollapser do: callers ask for one item
// each (Execute, Queue, Observe, ToObservable), and every timerDelayInMilliseconds, or as
// soon as maxRequestsInBatch requests are waiting, the batch becomes one command whose
// result is distributed back to the callers.
//
// Main types:
//
//   - Collapser[A, R, B]: requests with argument A, responses R, batch command result B.
//     Batch says how: Command (createCommand), MapResponse (mapResponseToRequests),
//     optional Shard (shardRequests) and CacheKey (request cache).
//   - StreamCollapser[A, R, I, K]: the batch command streams items I; each item goes to
//     the requests whose argument key K equals the item's key; requests no item matched
//     get ErrNoResponse or what OnMissingResponse sets.
//   - Request[A, R]: one request in a batch: Argument, SetResponse, SetError.
//   - Setter: collapser key, Scope (RequestScope, the default, or GlobalScope), properties
//     set in code (hystrix.collapser.<KEY>.*) and the Runtime (a *command.Runtime works).
//   - ErrNoResponse, ErrNoRequestContext, ErrBadBatch: sentinels for errors.Is.
//
// Data flow:
//
//	caller ─Execute(ctx, arg)─> submit ──CacheKey + requestCache.enabled──> same key in
//	   │                          │        the request cache or the open batch: share that
//	   │                          │        Request (RESPONSE_FROM_CACHE)
//	   │                          v
//	   │       open batch of the scope (GLOBAL: one; REQUEST: one per cache.RequestContext)
//	   │       first request arms clock.AfterFunc(timerDelay); the request that makes it
//	   │       full fires it at once
//	   │                          │ fire: metrics BATCH_EXECUTED, ADDED_TO_BATCH x n, size
//	   │                          v
//	   │       Shard ─> per shard: Command(requests) ─> cmd.Execute(batch ctx)
//	   │                 (COLLAPSED x shard size)        │ error: to every request
//	   │                                                 v
//	   │                          MapResponse(result, requests) ─> Request.SetResponse
//	   │                          unanswered requests ─> ErrNoResponse
//	   v
//	waits on its Request (or ctx.Done: it leaves the batch; the others are unaffected;
//	when nobody waits any more an open batch is dropped and a running one cancelled)
//
// Goroutines: none per collapser or key. An open batch holds one clock timer; a batch
// fired by its timer runs on the timer's goroutine, a full one on a goroutine of its own;
// nothing is kept once a batch has fired, so idle collapsers cost only their struct and
// REQUEST-scope batches need no cleanup when the request context closes.
//
// The batch command runs with a context that carries no caller's cancellation: in
// REQUEST scope it keeps the request's values (so the command appears in that request's
// log and uses its request cache), in GLOBAL scope it is context.Background().
//
// Why a package of its own: the collapser sits above command. Its batches are commands
// (with breaker, isolation, timeout, fallback and metrics), yet command must not know
// about batching: keeping it out of command keeps the command hot path and API free of
// batch state, and the dependency arrows one way. The collapser needs of a command only
// Execute (or ToObservable for streams), so it depends on two one-method interfaces and
// not on the command package itself: any command-like value can serve a batch, and
// tests can batch without a command runtime.
//
// Better than Hystrix: duplicates without a request cache are sent as separate requests
// instead of failing; a caller that leaves takes its request out of the open batch; a
// panic in Command, Shard or MapResponse fails the batch's requests with ErrBadBatch
// instead of hanging them, and a panic in CacheKey fails only its own request with
// ErrBadBatch (returned by Execute and Queue's future, emitted by the observables)
// instead of crashing the caller. Unlike Hystrix's fixed-rate tick, a batch's timer
// starts with its first request, so no request waits longer than timerDelay for its
// batch to fire.
package collapser
