// Package breaker is the Hystrix circuit breaker: one breaker per command key, opened
// by the command's rolling health counts and closed again by a single trial request.
//
// # Main types
//
//   - CircuitBreaker: the gate a command asks before it runs (AttemptExecution) and
//     tells the outcome afterwards (MarkSuccess, MarkNonSuccess, MarkCancelled,
//     ReleaseTrial). AllowRequest and IsOpen are side-effect-free views for dashboards.
//   - Registry: get-or-create a breaker per command key (NewRegistry for a fresh one,
//     Default for the process-wide one); OnStateChange reports every Transition with
//     its reason.
//   - State: Closed, Open, HalfOpen.
//
// # States
//
//	               errors% >= threshold and requests >= volume
//	+--------+     (on each HealthCounts snapshot)               +------+
//	| CLOSED | ------------------------------------------------> | OPEN |
//	+--------+                                                   +------+
//	  ^    ^                                                       |  ^
//	  |    |                 sleep window over (or released):      |  |  trial failed or cancelled:
//	  |    |                 the one caller that wins              |  |  fresh sleep window.
//	  |    |                 AttemptExecution is the trial         v  |  released (bad request) or
//	  |    |  trial succeeded                              +-----------+  abandoned (no verdict
//	  |    +-----------------------------------------------| HALF_OPEN |  within one sleep window):
//	  |       (health counts reset first)                  +-----------+  window already over
//	  |
//	  +---- Reset (operator), from OPEN or HALF_OPEN
//
// Gate decisions, in order, read from the command properties on every call:
// circuitBreaker.enabled=false lets everything through and reports never open;
// forceOpen refuses everything (it beats forceClosed); forceClosed lets everything
// through. Forcing changes no state and starts no trial; the health counts keep
// driving the state machine underneath so that lifting the force shows the truth. While
// disabled, a breaker ignores health counts and outcomes (its state is frozen) and acts as
// NoOp; enabling it again resumes where it was.
//
// # Better than Hystrix
//
//   - Bad requests during a trial: ReleaseTrial ends the trial without a verdict. The
//     breaker goes HALF_OPEN -> OPEN with its sleep window already over, so the next
//     AttemptExecution starts a new trial at once (Hystrix issue #2005 reopened it).
//   - A trial whose command never reports back cannot leave the breaker stuck in
//     HALF_OPEN: a trial older than one sleep window is abandoned (reported as
//     HALF_OPEN -> OPEN "trial abandoned") and the next caller becomes the new trial.
//     A verdict that arrives late still counts while the breaker is HALF_OPEN. A
//     cancelled trial (MarkCancelled) reopens with a fresh sleep window.
//   - A window without errors never trips the breaker, even with a volume threshold or
//     an error threshold of 0 (Hystrix opens on an empty window at 0/0).
//   - Every transition is reported with its reason, e.g. "error percentage 60% >= 50%
//     over 25 requests", "trial succeeded", "trial failed", "trial cancelled",
//     "reset by operator". Listeners run on a short-lived delivery goroutine, in the
//     order the transitions happened, never under a lock that a request takes and
//     never on the metrics goroutine.
//   - Reset lets an operator close a breaker (and clear its health counts) at once.
//
// # Using it from a command
//
//	b := registry.Get(key, props)          // lock-free after the first call for a key
//	if !b.AttemptExecution() { short-circuit -> fallback }   // before isolation
//	run ... then exactly one of:
//	  success                       b.MarkSuccess()
//	  failure/timeout/rejection     b.MarkNonSuccess()
//	  bad request                   b.ReleaseTrial()
//	  unsubscribed before outcome   b.MarkCancelled()
//
// # Data flow
//
//	command -- AttemptExecution --> breaker (atomic state word)
//	command -- Mark... -----------> breaker --(HALF_OPEN -> CLOSED)--> metrics.ResetHealthCounts
//	metrics -- HealthCounts ------> breaker.onHealth --(CLOSED -> OPEN)
//	metrics -- key evicted -------> Registry drops the breaker, cancels its subscription
//	breaker -- Transition --------> notifier queue --> delivery goroutine --> listeners
//
// # Cost and memory
//
// The whole state (state, sleep-window or trial stamp, released flag) is one packed
// uint64. In CLOSED, AttemptExecution and AllowRequest are four atomic loads (three
// properties and the state word), no lock, no allocation, no clock read; the clock is
// read only when the breaker is open. State changes are serialised by a per-breaker
// mutex that the CLOSED path never touches; when many callers race for the trial exactly
// one wins. A breaker is about a hundred bytes plus its health subscription. When the
// metrics registry evicts an idle key (metrics.Registry.OnCommandEvicted) the breaker
// Registry drops the key's breaker and cancels its health subscription, so the evicted
// metrics are not kept alive by the breaker, and both come back fresh on next use.
package breaker
