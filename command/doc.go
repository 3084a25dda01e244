// Package command runs calls to dependencies the way Netflix Hystrix's HystrixCommand
// and HystrixObservableCommand do: behind a circuit breaker, an isolation (semaphore,
// goroutine pool, or beyond Hystrix an adaptive concurrency limit), a timeout and a
// fallback, with every outcome published to metrics.
//
// Main types:
//
//   - Command[T]: run produces one value; an optional fallback recovers failures.
//     Execute blocks, Queue returns a Future, Observe a hot replaying rxgo.Observable,
//     ToObservable a cold one, Values an iter.Seq2. Commands are single use.
//   - Stream[T]: construct produces an rxgo.Observable of many values (EMIT per value);
//     ToObservable, Observe and Values consume it.
//   - Define / Kind[T] and DefineStream / StreamKind[T]: a command key checked once, where
//     it is defined; New on the Kind makes its commands, and Kind.Execute(ctx, run) runs
//     one on an execution the Kind reuses (the fastest door: no allocation under
//     SEMAPHORE; run's context is valid until run returns). command.New and NewStream
//     define a key on its first use instead (an invalid one then fails each execution).
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
// Every command key has a chain: its stages, outermost first, assembled from the key's
// properties (chain.go) and picked again when one of them changes (a key whose breaker
// is disabled has no gate, a SEMAPHORE key no pool stage); keys that ask for the same
// stages share one chain. Most stages are steps: they act on the way in (and may decide
// there, skipping the rest) and on the way out, with the verdict of the stages inside
// them. A stage that must run the rest of the chain itself (on another goroutine, or more
// than once) is a wrapper. An execution is one descent through the chain:
//
//	front door (Execute, Queue, Observe, ToObservable, Values): single use, request log
//	  requestCache  a hit replays the original's outcome; a miss runs the rest and is shared
//	  terminal      exactly once: metrics, notifier, onSuccess/onError/onUnsubscribe
//	  onStart       the onStart hook (a failure fails fast: no fallback, no health effect)
//	  fallback      onErrorResumeNext: SHORT_CIRCUITED, *_REJECTED, TIMEOUT and FAILURE
//	                resume into the fallback behind its semaphore
//	  retry         retry.maxAttempts > 1 only: runs the rest again with a new attempt
//	                while it FAILED, after a backoff, within the key's budget
//	  hedge         hedge.maxHedges > 0 only: runs the rest on goroutines, one attempt
//	                each, another after each delay; the first success wins
//	  breakerGate   Attempt on the way in; on the way out it reports the verdict it got
//	  rateLimit     rateLimit.enabled only: a permit from the group's limiter, now or
//	                after a wait of at most maxWait (RATE_LIMITED, neutral, when none)
//	  semaphore     SEMAPHORE only: the execution semaphore, held until the rest returns
//	                (its permits are the key's concurrency in metrics)
//	  adaptiveLimit ADAPTIVE only: a permit of the adaptive limit, held until the rest
//	                returns, given back with the run's latency and outcome
//	  timeout       starts the attempt's clock (queue wait counts) and its deadline, and
//	                opens the race that the run, the timer and the caller settle
//	  faultInjection  faultInjection.enabled only: picks a share of the executions and
//	                gives run's place to a fault (error, panic, delay, hang) or decides
//	                an outcome (a short circuit, a rejection, a bad request)
//	  threadPool    THREAD only: hands the rest (the run) to the key's goroutine pool and
//	                waits for the race's winner
//	  run           onExecutionStart, run (or construct and its stream), classify
//
// Verdicts travel by value (verdict.go): a stage returns what happened and why (its
// cause); nothing about an outcome is left in a field for another stage to find. What the
// whole command owns is its execution (execution.go), embedded in the Command; what one
// try of the stages from the breaker inward owns (its clock, race, run context, events
// and latency) is an attempt (attempt.go), the first embedded in the execution. The steps
// run in one loop (link.run), so the stack an execution needs does not grow with the
// stages: the SEMAPHORE success path fits in 4 KB, twice what a new goroutine starts
// with, so the producer goroutine of an operator's subscription of ToObservable grows its
// stack once, first, while it is shallow (stack.go), rather than deep inside the
// execution.
//
// The chain runs on the caller's goroutine. Under SEMAPHORE isolation it never waits for
// another goroutine: no goroutine, no channel, no rxgo operator on the path. Under THREAD
// isolation the pool stage waits for the race's winner (the worker when the run returns,
// the timer at the deadline, or the caller leaving); Execute waits with it, while Queue
// and Observe run such a chain on a goroutine of their own and return as soon as the pool
// took the run (driveAsync), so a short circuit or a rejection is known when they return.
// A runtime.Goexit in user code unwinds through the chain, whose exits still run (with the
// verdict aborted), so every permit is released and the metrics and breaker are told:
// nothing leaks.
//
// The front doors are views of one execution: Execute drives it and returns (Kind.Execute
// too, on an execution it takes from the Kind's pool and puts back when nothing else can
// reach it: see Kind.Execute); Queue drives it and returns a Future made for it (completed
// before Queue returns under SEMAPHORE, as in Hystrix; a rejection or short circuit
// without fallback is Queue's error); Observe drives it with the caller's context and
// returns a hot observable that replays the outcome (observable.Future.Observable: a view
// of the command's future, so no allocation, and a pre-filled channel once the outcome is
// known, no goroutine); ToObservable drives it when subscribed, with the subscriber's
// context (read from the subscription's options: observable.SubscriptionContext), on a
// goroutine of its own that leaves the outcome in the subscription's channel (an
// operator's subscription, Map and the like, drives it on rxgo.Defer's producer
// goroutine); Values drives it when ranged. A command is single use: the first door
// claims it, and every later one (a second subscription, as through RxGo operators that
// subscribe twice such as DoOnNext with DoOnError) gets the BAD_REQUEST_EXCEPTION and
// leaves the first alone; Observe called again returns the same observable.
// Streams run under SEMAPHORE isolation only: construct's observable emits on its own
// goroutines already, so a pool worker would only wait on channels while holding a slot
// (defining a stream key with THREAD isolation in code is an error).
//
// # Writing a stage
//
// A new capability (a rate limiter, a retry, fault injection) is a stage: one file, plus
// its properties in config, its event types in the event table (metrics/event_type.go),
// and one line in the layout (chain.go) that puts it in its place. Nothing else changes.
//
//   - A step has enter, which runs on the way in and returns ok false when it decides on
//     its own, and exit, which runs on the way out with the verdict of the stages inside
//     (aborted when the goroutine unwinds) and gives back what enter took. A wrapper has
//     run(x, a, next): it runs the rest of the chain itself, next.run(x, a), and gives
//     back what it took in a deferred call. Write a step unless the stage must run the
//     rest on another goroutine or more than once.
//   - A stage keeps no per-execution state of its own: that is in x (the execution) and
//     a (the attempt), each field documented with the stage that writes it; per-key state
//     is reached through x.ks.
//   - A stage not every key uses implements forKey(shape), returning false to stay out
//     of a key's chain: a key pays nothing for a stage it does not use. The shape is the
//     key's properties as they are: a change picks the chain again.
//   - A stage that refuses an attempt declares its refusal (its event and failure type)
//     and returns a.refuse(&itsRefusal, cause): the fallback recovers it, the breaker
//     reads its event's health, metrics count it.
//   - A stage that may wait for another goroutine implements waiting (waits()), and
//     waits with x.wait, which lets an asynchronous door's caller go first and stops when
//     the caller leaves.
//   - A wrapper that runs the rest more than once (a retry, a hedge) calls x.retire(a)
//     for an attempt that will not be the last (it reaches metrics as a completion of its
//     own) and next.run(x, x.newAttempt()) for the next: each attempt has its own clock,
//     race, run context, events and latency, and the command's outcome is decided once, by
//     the stages outside it (stage_test.go has one).
//   - Inside the timeout stage, a stage that decides without calling the run first wins
//     the race for the run's side (a.race.runEnded).
//   - Keep enter and exit small, slow paths in functions of their own: an exit's frame is
//     on the stack while what it calls runs.
//
// # Retries and the budget
//
// With retry.maxAttempts above 1 the retry stage (stage_retry.go) runs the stages inside
// it again, with a new attempt, while an attempt FAILED (the Classifier's failures; a
// TIMEOUT too with retry.onTimeout), waiting an exponential backoff with full jitter on
// the runtime's clock (or the wait the dependency asked for: RetryAfter) and stopping when
// the caller leaves (CANCELLED, at once). It sits inside the fallback and the terminal, so
// the command's outcome is decided once (one terminal event, the fallback once, at the
// end), and outside the breaker's gate, the isolation and the timeout, so that each
// attempt asks the breaker (a breaker that opens mid-retries stops them: the next attempt
// is SHORT_CIRCUITED, never retried), reports its outcome to it and counts for health on
// its own (x.retire), takes its own permit (given back during the backoff) and has its
// own clock. Each attempt beyond the first records RETRY. By default the attempts share
// the execution timeout from the first start (retry.timeoutPerAttempt gives each all of
// it). A BAD_REQUEST, a refusal, a stream that emitted and a call made WithoutRetry are
// never retried. As the backoff waits, Queue and Observe run a retrying key's chain on a
// goroutine of their own (driveAsync) and return when the first backoff starts, or the
// command ends without one.
//
// Every retry (and hedge) is first taken from a budget (budgets.go, the budget package):
// by default at most budget.percent (20 %) of the original requests of the last 10 s, or
// budget.minPerSecond when that is more, for the key or the keys of its budget.group;
// budget.maxTokens selects gRPC's token bucket instead. A retry the budget refuses is not
// made: BUDGET_EXHAUSTED, which says nothing about health. Without retries a key has no
// retry stage and pays nothing.
//
// # ADAPTIVE isolation
//
// Beyond Hystrix, execution.isolation.strategy=ADAPTIVE runs the command on the caller's
// goroutine, as SEMAPHORE does, behind a concurrency limit that learns the dependency's
// capacity (package adaptive: Gradient2 or Vegas, set by the
// execution.isolation.adaptive.* properties) instead of a fixed maxConcurrentRequests.
// The adaptiveLimit stage takes a permit without waiting and gives it back when the rest
// of the chain returns, on every path (a panic, runtime.Goexit, a timeout, a caller that
// left), with what the attempt teaches the limit: the run's latency when it succeeded or
// was a bad request, a drop when it failed or timed out, nothing when the run never
// started or the caller left. A refusal is ADAPTIVE_REJECTED (failure type
// REJECTED_ADAPTIVE_EXECUTION, errors.Is ErrAdaptiveRejected) whose cause is the reason:
// adaptive.ErrLimit, ErrCriticality, ErrQueueFull or ErrQueueTimeout. It counts against
// health like SEMAPHORE_REJECTED: a limit that refuses says the dependency is slow to give
// its permits back, which is what the breaker is there to see. A key that sheds load by
// design refuses a large share under overload (half of it at twice the capacity): give its
// breaker an errorThresholdPercentage above the share it expects to shed, or disable it.
//
// Each execution carries a criticality from its context (WithCriticality; hystrixhttp's
// Middleware and hystrixgrpc's server interceptor set it from the request): under
// overload the lowest is refused first, each level keeping the share of the limit that
// execution.isolation.adaptive.reserved gives it. With execution.isolation.adaptive.queueSize
// an execution may wait for a permit (the stage is then a waiting one: Queue and Observe
// drive the chain on a goroutine of their own), at most the execution timeout
// (ErrQueueTimeout) and no longer than its caller (it then ends CANCELLED). A key has a limit of its own, or shares its
// execution.isolation.adaptive.group's with the other keys of the group (configured by
// whichever of them bound last: give them the same properties). An uncontended Execute
// under ADAPTIVE allocates what one under SEMAPHORE does and costs about as much
// (BenchmarkAdaptiveVersusSemaphore: 1.06x the time, 0.91-1.21x over 10 runs on a
// loaded 2-core AMD EPYC).
//
// # Rate limiter
//
// With rateLimit.enabled, an execution takes a permit from the limiter of its key's group
// (rateLimit.group, the command key by default; keys naming one group with the same
// permitsPerSecond and burst share a limiter; package ratelimit). The stage sits inside
// the breaker's gate and outside isolation: a short-circuited call spends no permit, and
// a call waiting for one (up to rateLimit.maxWaitInMilliseconds, 0: none) holds no
// execution permit and its wait is not execution latency. A permit further away than the
// bound, or than the execution timeout, is refused at once: RATE_LIMITED, recovered by
// the fallback like a rejection, neutral to health and to the breaker (the dependency
// was not called). Without a fallback the caller gets an *Error of type RateLimited
// whose cause, a *RateLimitError, says when a permit will be free (RetryAfter: what
// hystrixhttp's Middleware sends as Retry-After with its 429). A wait ends when the
// permit comes or the caller leaves (CANCELLED, the permit given back), on the runtime's
// clock, with no goroutine of its own; Queue and Observe return before it. The
// runtime's limiters come from WithRateLimiters (an in-memory ratelimit.Bucket by
// default); a factory that fails leaves the key unlimited and logs why.
//
// # Fault injection
//
// With faultInjection.enabled and a faultInjection.percentage above 0, the stage picks
// that share of the executions (math/rand/v2, or the source given with WithRandom) and
// gives each the fault faultInjection.fault names (config.Fault). It sits inside the
// timeout and outside the pool: the pick and its FAULT_INJECTED event are made on the
// caller's goroutine, and an ERROR, PANIC, LATENCY (faultInjection.latencyInMilliseconds,
// then run) or HANG (until the run's context ends) happens in run's place, on the pool
// goroutine under THREAD, so it is classified, timed and counted as the dependency's own
// failure would be: FAILURE, TIMEOUT, CANCELLED. An outcome fault (SHORT_CIRCUITED,
// SEMAPHORE_REJECTED, THREAD_POOL_REJECTED, RATE_LIMITED, BAD_REQUEST) is decided there
// with that outcome's event, failure type and health. Either way the cause is a
// *FaultError, and FAULT_INJECTED is neutral: the fault counts once, as what it imitates.
// Off (by dynamic config, live) the stage is not in the key's chain and costs nothing
// (bench_test.go: BenchmarkExecuteFaultInjectionOff).
//
// # Hedging
//
// With hedge.maxHedges above 0 the hedge stage (stage_hedge.go) runs each try of the
// stages inside it on goroutines of its own: the first attempt at once, and while none
// has answered, another after each delay (hedge.delayInMilliseconds, or with
// hedge.delayPercentile the key's own rolling run-latency percentile, e.g. its p95, once
// its window holds 20 requests), up to maxHedges more, each taken from the budget
// (refused: BUDGET_EXHAUSTED, no more hedges) and recording HEDGE. The first attempt that
// succeeds wins: the stage, not the run, publishes its value (an attempt's run keeps its
// result in the attempt while hedged), the command reports it (x.last) and the others
// are cancelled through their run contexts; they end on their own goroutines and count
// themselves there (CANCELLED when the cancel ended them, a run error after it is not a
// FAILURE). When every attempt fails the command's outcome is the last failure and its
// fallback runs once; when the caller leaves, no hedge starts and the command is
// CANCELLED once its attempts end (each ends with the caller, as a single attempt does).
// It sits just inside the retry, so that a retry retries a try whose hedges all failed
// (and the retry keeps recording the budget's originals), and outside the breaker's gate,
// the isolation and the timeout, so that each attempt asks the breaker, takes its own
// permit (SEMAPHORE) or goroutine (THREAD), has its own clock and reports its outcome.
// The hedge starts the command's clock itself, before its attempts, and lets the caller
// of Queue or Observe go at once. A stream is never hedged, nor a call made WithoutRetry
// or WithoutHedge (hystrixhttp and hystrixgrpc mark theirs: a call keeps one response).
//
// # Timeouts and the run context
//
// The context given to run carries the caller's values and ends when the timeout fires
// (with execution.isolation.thread.interruptOnTimeout), when the caller's context ends,
// or when a Future is cancelled with interruptOnFutureCancel; never merely because run
// returned, so a value tied to it (an HTTP response body) stays usable after Execute. It is
// part of the attempt (no allocation); its Done channel is made only when asked for, and
// its watch on the caller's context holds the attempt weakly, so a long-lived caller
// context keeps no command alive. A stream's construct context ends with its subscription
// (completion, error, timeout, unsubscribe).
//
// Deadlines are kept per command key in a few ordered queues (striped, so parallel callers
// share no lock), each with one clock timer (deadlines.go), not one timer per execution.
// Under SEMAPHORE isolation an attempt joins the queue only if run asks for ctx.Done or
// ctx.Err (otherwise the clock decides when run returns, from the reading that ends the
// run); the caller gets its outcome when run returns, TIMEOUT if the timer won. Under
// THREAD isolation every attempt joins it, and the caller gets the fallback at the timeout
// while the late run is abandoned: its result changes nothing, but it stays bounded by the
// timeout (a cancelled Future does not take the timeout away).
//
// # Cancellation
//
// When the caller's context ends before the outcome (or a subscription ends, or a Future is
// cancelled) the command records CANCELLED, calls onUnsubscribe and returns the context's
// error; IsExecutionComplete stays false, as in Hystrix.
//
// # Streams
//
// A Stream's limits (stream.* properties, each off at 0) are watched by one clock timer per
// stream, armed for the earliest limit due and re-armed only when it fires early or a
// phase begins (stream_watch.go): an item costs a clock read and an atomic store. The
// establishment limit runs from the start (or a resume) until StreamEstablished or the
// first item, the first-item limit from the establishment, the idle limit from an item
// handed over (the time the subscriber holds an item is not idle), the lifetime from the
// start. A limit before the first item is ESTABLISH_TIMEOUT (unhealthy, a TIMEOUT for the
// caller); any failure after the first item is a FAILURE marked MID_STREAM_FAILURE (the
// marker alone, neutral, with stream.cutsCountForHealth=false or for an overflow), with
// IDLE_TIMEOUT for the idle limit. The run stage asks the body for the kind of a failure
// (body.failure), so the verdict kinds notEstablished, cut and cutUncounted reach the
// fallback and breaker stages like any other. WithResume re-opens a cut stream inside the same attempt (call's loop), from the
// last item delivered, bounded per stream; a shared retry budget belongs in
// Stream.resumable. stream.maxItemsInFlight sizes the channel the source sends on (one
// less for ToObservable, whose hand-off holds an item): BLOCK holds the source there, FAIL
// ends the stream when the subscriber took an item later than
// stream.overflowGraceInMilliseconds with the channel full (two clock reads per item).
// Every hand-off to the subscriber also ends with the run context (the timeout, the
// caller), a phase limit, or the subscriber leaving (ToObservable's operator chains
// through observable.Stoppable; a range loop's break through yield's false,
// synchronously); a source that ignores its context is drained until it ends. A key that
// sets none of these pays nothing but reading the properties once per stream.
//
// # Request cache
//
// With a cache key, requestCache.enabled and a request context (cache.NewRequestContext),
// the first command of a (key, cache key) pair in the request runs and the others, queued
// or concurrent, replay its value or error with its events plus RESPONSE_FROM_CACHE; only
// onCacheHit is called and metrics see one RESPONSE_FROM_CACHE. The slot is taken by the
// front door before it returns, so of queued duplicates the first queued runs. ToObservable
// takes the request context from the subscription's context: subscribe with
// Observe(rxgo.WithContext(ctx)).
//
// # Cost
//
// What an execution reads (the runtime's clock), writes and allocates under SEMAPHORE
// isolation without hooks. Hooks add no clock read (their time, and the notifier's, is
// not the command's); a hook or a notifier that is not the no-op one costs its calls and
// allocates nothing (hooks_allocs_test.go), but for the value boxed for the emit hooks
// unless the hook leaves them out (hooks.EmitIgnorer). TestClockReadsPerExecution counts
// the reads, the allocation pins (allocs_test.go) the allocations.
//
//   - Success: two clock reads, the start (timeout stage: it also arms the timeout,
//     from that reading) and the run's end, which is also the terminal time. Writes to
//     shared state: the execution semaphore, whose permits are the key's concurrency in
//     its metrics (metrics TryMarkStart and MarkEnd: two atomic writes to one counter,
//     so concurrent callers pass one cache line between them, not two), then a few
//     atomic adds on a metrics stripe and two histogram slots, nothing else (the
//     breaker's state is one atomic load). Allocates nothing with Kind.Execute;
//     New+Execute allocates the Command.
//   - A run that asks its context for Done or Err: the same two reads. A lazy deadline
//     joins one of the key's deadline queues (a lock, a link, an unlink when run returns)
//     without a read, unless that queue's timer must be armed (about once per timeout
//     period and queue under steady traffic). Done makes the done channel, once per
//     pooled execution with Kind.Execute (once per command with New). A caller context
//     that can end adds, for Done, a callback on it (context.AfterFunc, a weak pointer and
//     a cleanup) and the execution is not reused.
//   - Failure recovered by the fallback: three reads, the start, the run's end (the
//     execution latency) and the terminal time after the fallback (the total latency
//     counts the fallback's time, as Hystrix's does); two for a failure without a
//     fallback. Writes: as a success, plus the fallback semaphore; the breaker counts
//     the failure from the metrics (or at once, with evaluateOnFailure). Allocates
//     nothing with Kind.Execute (New+Execute: the Command). A failed run under a caller
//     deadline also reads the wall clock (callerGone: did the deadline pass?).
//   - Short circuit: one read, the breaker's sleep window (none when forced open); no
//     start, no latency (metrics ignore it for executions that never ran). Writes: the
//     fallback semaphore and the metrics' counters. Allocates nothing with Kind.Execute.
//     A semaphore rejection reads nothing.
//   - Timeout: decided by the clock at the run's end (a run that did not wait for its
//     context), the same reads as a failure; ended by the key's timer (a run waiting for its
//     context), those reads and the timer's own, on its goroutine, shared by every
//     deadline due then. An execution a timer ended is not reused (the timer may still
//     hold it): Kind.Execute allocates a new one next time.
//   - THREAD: four reads (start, the worker's start, the run's end, the terminal); the
//     deadline always joins the queue. Allocates the Command (never reused: the worker
//     may outlive the caller), its pool state, the pool task and its channel; Queue and
//     Observe add the goroutine that drives the chain.
//
// Without a fallback, a failure also allocates the caller's *Error. The Command that New
// makes is never recycled: the caller may keep it to read the accessors, the request log
// keeps it, and its run context stays usable after run returned.
package command
