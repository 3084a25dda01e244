// Package command runs calls to dependencies the way Netflix Hystrix's HystrixCommand
// and HystrixObservableCommand do: behind a circuit breaker, an isolation (semaphore or
// goroutine pool), a timeout and a fallback, with every outcome published to metrics.
//
// Main types:
//
//   - Command[T]: run produces one value; an optional fallback recovers failures.
//     Execute blocks, Queue returns an observable.Future, Observe returns a hot replaying
//     rxgo.Observable and ToObservable a cold one. Commands are single use.
//   - Stream: construct produces an rxgo.Observable of many values (EMIT per value).
//   - Setter: command, group and thread-pool keys, properties set in code, classifier.
//   - Runtime: the registries (config, metrics, breakers, pools, hooks, clock) and the
//     per-key state; Default for the process, NewRuntime for isolated tests.
//   - Error: the runtime error (failure type, command key, cause, fallback error), with
//     a sentinel per failure type (errors.Is(err, ErrTimeout)); BadRequest wraps errors
//     that are the caller's fault; a panic becomes a *PanicError with its stack.
//   - Classifier: decides per error whether it is a failure, a bad request or a business
//     outcome that counts as success (so it never trips the breaker).
//
// One execution chain, several front doors. The chain is plain Go (a state machine in
// exec and Command), run inline on the caller for SEMAPHORE isolation (zero goroutines,
// no rxgo operator on the path), handed to the pool for THREAD isolation; the observable
// front doors wrap the same chain in observable.Defer, Cache and ToFuture:
//
//	Execute ─────────────┐
//	ToObservable = Defer ┤
//	Observe = Cache+sub  ┼─> single use ─> request log ─> request cache (GetOrStart)
//	Queue = ToFuture     ┘        │
//	                              v
//	  onStart ─> breaker.Attempt ──refused──> SHORT_CIRCUITED ──────────┐
//	     │                                                              │
//	  SEMAPHORE: execSem.TryAcquire ──full──> SEMAPHORE_REJECTED ───────┤
//	  THREAD:    pool.Submit        ──full──> THREAD_POOL_REJECTED ─────┤
//	     │                                                              │
//	  run(ctx) racing the timeout (CAS) ──timer won──> TIMEOUT ─────────┤
//	     │                                                              │
//	  classify: nil ─> SUCCESS                                          │
//	            bad request ─> BAD_REQUEST (error as is, no fallback)   │
//	            failure ─> FAILURE ─────────────────────────────────────┤
//	                                                                    v
//	  fallback: disabled | FALLBACK_MISSING | FALLBACK_REJECTION | FALLBACK_SUCCESS |
//	            FALLBACK_FAILURE
//	     │
//	  terminate (exactly once): release semaphores and timer, metrics MarkComplete,
//	  breaker verdict, onSuccess / onError, or CANCELLED + onUnsubscribe
//
// Timeouts: the context given to run is the command's own (no allocation); it carries
// the caller's values and cancellation, and is cancelled at the timeout when
// execution.isolation.thread.interruptOnTimeout is set, and (inline runs) once the
// execution is over. The timeout clock starts when the run is isolated, so queue wait
// counts. Under SEMAPHORE isolation the timer is armed only if run calls ctx.Done
// (otherwise the clock decides when run returns, and ctx.Err polls it), and the caller
// gets its outcome when run returns: TIMEOUT if the timer won. Under THREAD isolation
// the caller gets the fallback at the timeout and the run is abandoned: its late result
// changes nothing.
//
// Cost (see bench_test.go): a SEMAPHORE Execute allocates once (the Command), starts no
// goroutine and reads the clock twice; a short-circuited or rejected one reads no clock
// (it reports no latency, which metrics ignore for executions that never ran). Hooks
// and the event notifier cost nothing while they are the no-op ones. The Command is not
// recycled (no sync.Pool): nothing tells the library when the last reference is gone.
// The caller may keep it to read the accessors, the request log keeps it, the context
// given to run is part of it (run may hand that context to code that outlives the call,
// and it must stay cancelled, not turn into a later execution's), and an abandoned
// THREAD run still writes its late result into it after Execute returned.
//
// Cancellation: when the caller's context ends before the outcome (or the subscription
// of an observable ends, or a Future is cancelled) the command records CANCELLED, calls
// onUnsubscribe and returns the context's error.
//
// Request cache: with a cache key, requestCache.enabled and a request context
// (cache.NewRequestContext), duplicates share the first execution (concurrent ones wait
// for it) and replay its value or error with its events plus RESPONSE_FROM_CACHE; only
// onCacheHit is called and metrics see one RESPONSE_FROM_CACHE (a Stream hit replays
// every value). Stream commands always run behind the execution semaphore on the
// subscriber's goroutine (never on the pool).
package command
