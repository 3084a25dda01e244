// Package breaker is the Hystrix circuit breaker: one breaker per command key, opened
// by the command's rolling health counts and closed again by a single trial request.
//
// # Main types
//
//   - CircuitBreaker: a gate that hands out a Ticket (Attempt) and a verdict that brings
//     it back with the Outcome (Report). AllowRequest and IsOpen are side-effect-free
//     views for dashboards.
//   - Registry: get-or-create a breaker per command key (NewRegistry for a fresh one,
//     Default for the process-wide one); OnStateChange reports every Transition with
//     its reason.
//   - State: Closed, Open, HalfOpen.
//
// # States
//
//	               errors% >= threshold and requests >= volume
//	+--------+     (each HealthCounts snapshot; with evaluateOnFailure also each failure)
//	| CLOSED | ------------------------------------------------> +------+
//	+--------+                                                   | OPEN |
//	  ^    ^                                                     +------+
//	  |    |                 sleep window over (or released):      |  ^
//	  |    |                 the one caller that wins              |  |  trial failed or cancelled:
//	  |    |                 Attempt is the trial                  v  |  fresh sleep window.
//	  |    |  trial succeeded                              +-----------+  released (bad request) or
//	  |    +-----------------------------------------------| HALF_OPEN |  abandoned (no verdict
//	  |       (health counts reset first)                  +-----------+  within one sleep window):
//	  |                                                                   window already over
//	  +---- Reset (operator), from OPEN or HALF_OPEN
//
// Every transition starts a new generation; Attempt returns the generation it let the
// caller through under, as a Ticket, and Report with a ticket of an older generation
// changes nothing. So only the verdict holding the HALF_OPEN trial's ticket decides the
// trial. Hystrix instead takes any success reported while HALF_OPEN as the trial's
// verdict, even one from a slow request admitted while CLOSED, and can close a breaker
// on a dependency that is still failing; here that late success is ignored.
//
// Gate decisions, in order, read from the command properties on every call:
// circuitBreaker.enabled=false lets everything through and reports never open;
// forceOpen refuses everything (it beats forceClosed); forceClosed lets everything
// through. Forcing changes no state and starts no trial; the health counts keep
// driving the state machine underneath so that lifting the force shows the truth. While
// disabled, a breaker ignores health counts and outcomes (its state is frozen) and acts as
// a breaker that always allows; enabling it again resumes where it was.
//
// # Better than Hystrix
//
//   - Bad requests during a trial: Report(trial, BadRequest) ends the trial without a
//     verdict. The breaker goes HALF_OPEN -> OPEN with its sleep window already over, so
//     the next Attempt starts a new trial at once (Hystrix issue #2005 reopened it).
//   - A trial whose command never reports back cannot leave the breaker stuck in
//     HALF_OPEN: a trial older than one sleep window is abandoned (reported as
//     HALF_OPEN -> OPEN "trial abandoned") and the next caller becomes the new trial;
//     the abandoned trial's verdict, if it comes, decides nothing. A cancelled trial
//     reopens with a fresh sleep window.
//   - Only the trial's ticket decides the trial (above).
//   - circuitBreaker.evaluateOnFailure (default false, so Hystrix's snapshots stay the
//     default): a failure reported to a CLOSED breaker re-evaluates the thresholds at once
//     from the key's exact live health counts (the closed window plus the bucket in
//     progress, metrics.CommandMetrics.LiveHealthCounts), so the breaker opens at the
//     failure that crosses them rather than at the next snapshot. A success in CLOSED
//     still costs one atomic load; the failure path reads a few counters, no lock.
//   - A window without errors never trips the breaker, even with a volume threshold or
//     an error threshold of 0 (Hystrix opens on an empty window at 0/0).
//   - Every transition is reported with its reason, e.g. "error percentage 60% >= 50%
//     over 25 requests", "trial succeeded", "trial failed", "trial cancelled",
//     "reset by operator". Listeners run on a short-lived delivery goroutine, in the
//     order the transitions happened, never under a lock that a request takes and
//     never on the metrics roll.
//   - Reset lets an operator close a breaker (and clear its health counts) at once.
//
// # Using it from a command
//
//	b := registry.Get(key, props)       // one lock-free map lookup after the first call
//	t, ok := b.Attempt()                 // before isolation
//	if !ok { short-circuit -> fallback }
//	run ..., then
//	b.Report(t, outcome)                 // Success, Failure (failure, timeout, rejection),
//	                                     // BadRequest, Cancelled (unsubscribed first)
//	record the completion in the key's metrics (MarkComplete)
//
// # Data flow
//
//	command -- Attempt ----------> breaker (atomic status)            -- Ticket --> command
//	command -- Report(t, o) -----> breaker --(HALF_OPEN -> CLOSED)--> metrics.ResetHealthCounts
//	                                       --(CLOSED, Failure, evaluateOnFailure)--> LiveHealthCounts
//	command -- MarkComplete -----> metrics: counted on the caller
//	metrics -- HealthCounts -----> breaker.onHealth --(CLOSED -> OPEN)      (on the roll)
//	metrics -- key evicted ------> Registry drops the breaker, cancels its subscription
//	breaker -- Transition -------> notifier queue --> delivery goroutine --> listeners
//
// # Cost and memory
//
// The state (state, generation, sleep-window or trial stamp, released flag) is one
// immutable status behind an atomic pointer; a transition publishes a new one. In
// CLOSED, Attempt and AllowRequest are four atomic loads (three properties and the
// status), Report of a success one: no lock, no allocation, no clock read; the clock is
// read only when the breaker is open. Transitions are serialised by a per-breaker mutex
// that the CLOSED path never touches; when many callers race for the trial exactly one
// wins. A breaker is about a hundred bytes plus its health subscription. Breakers live
// in a sync.Map, so making the 10,000th costs what the 100th did. When the metrics
// registry evicts an idle key (metrics.Registry.OnCommandEvicted) the breaker Registry
// drops the key's breaker and cancels its health subscription, so the evicted metrics
// are not kept alive by the breaker, and both come back fresh on next use.
package breaker
