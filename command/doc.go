// Package command runs calls to dependencies the way Netflix Hystrix's HystrixCommand
// and HystrixObservableCommand do: behind a circuit breaker, an isolation (semaphore or
// goroutine pool), a timeout and a fallback, with every outcome published to metrics.
//
// Main types:
//
//   - Command[T]: run produces one value; an optional fallback recovers failures.
//     Execute blocks, Queue returns a Future, Observe a hot replaying rxgo.Observable,
//     ToObservable a cold one, Values an iter.Seq2. Commands are single use.
//   - Stream[T]: construct produces an rxgo.Observable of many values (EMIT per value);
//     ToObservable, Observe and Values consume it.
//   - Define / Kind[T] and DefineStream / StreamKind[T]: a command key checked once, where
//     it is defined; New on the Kind makes its commands. command.New and NewStream define
//     a key on its first use instead (an invalid one then fails each execution).
//   - Setter: command, group and thread-pool keys, properties set in code, classifier.
//   - Runtime: the registries (config, metrics, breakers, pools, hooks, clock, logger)
//     and the per-key state; Default for the process, NewRuntime for isolated tests.
//   - Error: the runtime error (failure type, command key, cause, fallback error), with
//     a sentinel per failure type (errors.Is(err, ErrTimeout)); BadRequest wraps errors
//     that are the caller's fault; a panic becomes a *PanicError with its stack.
//   - Classifier: decides per error whether it is a failure, a bad request or a business
//     outcome that counts as success (so it never trips the breaker).
//
// # The chain
//
// Every command key has its chain assembled once, as a list of named stages (stage_*.go),
// one list per isolation strategy; an execution is driven through it by chain.run. Each
// stage has an enter half, run on the way in, and an exit half, run on the way out with
// the verdict of the stages inside it; a stage that decides (a short circuit, a full
// semaphore, the run itself) returns its verdict from enter and the stages inside it are
// skipped:
//
//	front door (Execute, Queue, Observe, ToObservable, Values): single use, request log
//	  requestCache  a hit replays the original's outcome; a miss runs the rest and is shared
//	  terminal      exactly once: release, metrics, notifier, onSuccess/onError/onUnsubscribe
//	  onStart       the onStart hook (a failure fails fast: no fallback, no health effect)
//	  fallback      onErrorResumeNext: SHORT_CIRCUITED, *_REJECTED, TIMEOUT and FAILURE
//	                resume into the fallback behind its semaphore
//	  breakerGate   Attempt before, Report after: the only place a verdict reaches the breaker
//	  semaphore     SEMAPHORE only: the execution semaphore, held until run returns
//	  timeout       starts the clock (queue wait counts) and the deadline; the run and the
//	                timer race to claim the execution, exactly one wins
//	  threadPool    THREAD only: submits the run stage to the key's goroutine pool, queues
//	                the deadline and suspends the chain until the run, the timer or the
//	                caller resumes it
//	  run           onExecutionStart, run (or construct and its stream), classify
//
// Verdicts travel by value (verdict.go): a stage returns what happened, it never leaves an
// outcome in a field for a later stage to find. Per-execution state is one struct,
// execution, embedded in the Command (Execute's only allocation); the stages are stateless
// values, so assembling the chain costs nothing per call. The chain runs inline on the
// caller's goroutine up to the run under SEMAPHORE isolation (no goroutine, no channel,
// no rxgo operator on the path). Under THREAD isolation it suspends in threadPool; Execute
// waits for the resumption and runs the outer exits (fallback included) on its own
// goroutine, while Queue and Observe return at once and the exits run on the goroutine that
// resumed the chain (the pool worker, or a fresh goroutine after a timeout or a cancel).
// A runtime.Goexit in user code unwinds through chain.run, which still runs every exit due
// (permits released, metrics and breaker told), so nothing leaks.
//
// The front doors are views of one execution: Execute drives it and returns; Queue drives
// it and returns a Future made for it (completed before Queue returns under SEMAPHORE, as
// in Hystrix; a rejection or short circuit without fallback is Queue's error); Observe
// drives it with the caller's context and returns a hot observable that replays the
// outcome (a pre-filled channel once it is known, no goroutine); ToObservable drives it
// when subscribed, with the subscriber's context (rxgo.Defer); Values drives it when
// ranged.
// Streams run under SEMAPHORE isolation only: construct's observable emits on its own
// goroutines already, so a pool worker would only wait on channels while holding a slot
// (defining a stream key with THREAD isolation in code is an error).
//
// # Timeouts and the run context
//
// The context given to run carries the caller's values and ends when the timeout fires
// (with execution.isolation.thread.interruptOnTimeout), when the caller's context ends,
// or when a Future is cancelled with interruptOnFutureCancel; never merely because run
// returned, so a value tied to it (an HTTP response body) stays usable after Execute. It is
// part of the Command (no allocation); its Done channel is made only when asked for, and
// its watch on the caller's context holds the execution weakly, so a long-lived caller
// context keeps no command alive. A stream's construct context ends with its subscription
// (completion, error, timeout, unsubscribe).
//
// Deadlines are kept per command key in a few ordered queues (striped, so parallel callers
// share no lock), each with one clock timer (deadlines.go), not one timer per execution.
// Under SEMAPHORE isolation an execution
// joins the queue only if run asks for ctx.Done (otherwise the clock decides when run
// returns, and ctx.Err polls it); the caller gets its outcome when run returns, TIMEOUT if
// the timer won. Under THREAD isolation every execution joins it, and the caller gets the
// fallback at the timeout while the late run is abandoned: its result changes nothing, but
// it stays bounded by the timeout (a cancelled Future does not take the timeout away).
//
// # Cancellation
//
// When the caller's context ends before the outcome (or a subscription ends, or a Future is
// cancelled) the command records CANCELLED, calls onUnsubscribe and returns the context's
// error; IsExecutionComplete stays false, as in Hystrix.
//
// # Request cache
//
// With a cache key, requestCache.enabled and a request context (cache.NewRequestContext),
// the first command of a (key, cache key) pair in the request runs and the others, queued
// or concurrent, replay its value or error with its events plus RESPONSE_FROM_CACHE; only
// onCacheHit is called and metrics see one RESPONSE_FROM_CACHE. The slot is taken by the
// front door before it returns, so of queued duplicates the first queued runs.
//
// # Cost
//
// See bench_test.go: a SEMAPHORE Execute allocates once (the Command), starts no goroutine
// and reads the clock three times (start, run's end, terminal); a short-circuited or
// semaphore-rejected one reads no clock (it reports no latency, which metrics ignore for
// executions that never ran). A run that waits for its context adds its done channel. Hooks
// and the event notifier cost nothing while they are the no-op ones. The Command is not
// recycled: the caller may keep it to read the accessors, the request log keeps it, and
// the run context is part of it.
package command
