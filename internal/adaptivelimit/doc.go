// Package adaptivelimit is a concurrency limit that finds a dependency's capacity by
// itself: the engine of the ADAPTIVE isolation strategy of package command (its
// adaptiveLimit stage), configured by the execution.isolation.adaptive.* properties. Users
// do not see it: they choose ADAPTIVE isolation and its properties, give calls a
// criticality and match refusals with package adaptive, which holds Criticality and the
// refusal causes this package returns (adaptive.ErrLimit, ErrCriticality, ErrQueueFull,
// ErrQueueTimeout).
//
// A Limiter admits a call while the calls in flight are fewer than its limit, and learns
// the limit from what the calls it admitted report when they end: their round-trip time
// (RTT) and whether they were dropped (timed out or failed). It needs no goroutine and no
// timer: the samples are folded on the goroutines that release their permits, and a
// window closes on the release that finds it old enough.
//
//	Acquire(criticality) --admitted--> call --Release(now, rtt, outcome)--> window
//	     |  inflight < limit x share                                         |
//	     +--refused: ErrLimit, ErrCriticality, ErrQueueFull                  |
//	                                     every Window (and MinSamples): Algorithm.Next
//	                                       limit' = clamp(MinLimit, MaxLimit, smoothed)
//
// # Admission
//
// The limit and the count in flight share one atomic word, and a call is admitted by one
// compare-and-swap that checks the count against the limit it reads in the same word: the
// count in flight never exceeds the limit at any admission, even while the limit shrinks
// (calls already in flight then finish; no new one is admitted until the count is below
// the new limit). An uncontended Acquire and Release cost two atomic operations and one
// uncontended lock.
//
// # Criticality
//
// Each call carries an adaptive.Criticality (CriticalPlus, Critical, SheddablePlus,
// Sheddable, the levels of Google's SRE book; package command reads it from the
// execution's context with adaptive.FromContext: Critical when none is set).
// Settings.Reserved gives each level a share of the limit that the levels below it may not
// use: a call of level c is admitted while the count in flight is below the limit times
// one minus the shares reserved by the levels above c. Under overload the lowest level is
// therefore refused first (ErrCriticality), and a level keeps the share reserved for it
// and the levels above. The share reserved for a level should cover its part of the load:
// with 30 % of the calls CriticalPlus at twice the capacity, about 60 % of the limit.
//
// # Queue
//
// With Settings.QueueSize > 0 a call that finds the limit reached waits in a short queue
// instead of being refused at once (Acquire returns a Waiter). A freed permit goes to the
// waiter of the highest criticality, the newest first (LIFO: under overload the newest
// call is the one whose caller is still likely to be waiting); a call that finds the queue
// full pushes out the oldest waiter of the lowest level if that level is not above its own
// (ErrQueueFull for the one pushed out), else it is refused itself. The queue is bounded
// in size, so under overload a waiter is either served or pushed out after at most
// QueueSize newer arrivals; the caller bounds the wait itself too (Cancel when it leaves,
// Expire when it has waited long enough: package command allows the execution timeout).
//
// # Algorithms
//
// Every window (Settings.Window and at least MinSamples samples) the limiter hands the
// algorithm a Window: the mean RTT of the window's samples, the Baseline (the lowest mean
// RTT of a window seen so far: the RTT without queueing), the drops, the most calls in
// flight and whether a call was refused. Both algorithms compare means of windows rather
// than single samples, so a service time with a long tail (exponential, say) does not make
// them overreact, and both keep a limit that is not used from growing (a window whose
// calls stayed below half the limit and refused none does not raise it).
//
//   - Gradient2 (the default): limit' = limit x clamp(Tolerance x Baseline / mean, 0.5,
//     1) plus sqrt(limit), smoothed. At equilibrium the mean RTT is about Tolerance x
//     Baseline / (1 - 1/sqrt(limit)): a queue of a few calls in the dependency, enough to keep it
//     busy between arrivals, not enough to build latency. Netflix's Gradient2 compares
//     with a long average of the RTT instead, which follows the RTT up under a long
//     overload (the limit creeps); this one compares with the baseline.
//   - Vegas: the queue in the dependency is estimated as limit x (1 - Baseline / mean);
//     with step = max(1, log10(limit)), below Alpha x step the limit grows by step, above
//     Beta x step it shrinks by as much (Netflix's Vegas, on window means).
//
// Gradient2 is the default: on the goodput benchmark (bench/README.md, "Goodput under
// overload") both algorithms keep the dependency as busy as it can be with a p99 close to
// the unloaded one, within each other's noise, and Gradient2 corrects a limit far too high
// faster (its step is proportional to the error: it halves a limit within 5 s where
// Vegas, moving by log10(limit) a window, takes 10 s).
//
// A window with drops shrinks the limit to limit x Backoff (0.9) whatever the algorithm.
// The baseline is learned from the first windows, so the limit starts low (InitialLimit 4)
// and grows: a limit that starts above the dependency's capacity while it is overloaded
// sees only queued calls, takes their latency for the baseline and settles too high
// (measured: 30 for 4 workers from a start at 20, TestAColdStartUnderOverloadSettles).
// The baseline only moves down: a dependency that became slower for good is seen as a
// congested one, and the limit settles where the algorithm's headroom holds it (a few
// calls above the dependency's own concurrency), not at MinLimit.
//
// # Groups
//
// A Limiter is shared by whoever holds it: package command gives each command key its own,
// or one per execution.isolation.adaptive.group so that keys calling the same dependency
// share one limit.
package adaptivelimit
