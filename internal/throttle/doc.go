// Package throttle is the algorithm behind a command key's graded throttling stage
// (throttle.* properties, see package command): Google SRE's client-side adaptive
// throttling ("Handling Overload", Site Reliability Engineering, chapter 21), the breaker
// go-zero users rely on.
//
// A Throttle counts, over a sliding window, the requests a client attempted and those the
// dependency accepted, and refuses a new request locally with probability
//
//	max(0, (requests - K x accepts) / (requests + 1))
//
// so that the dependency receives about K times what it accepts: at K = 2 a dependency
// that serves X calls a second, offered 3X, receives 2X and still serves X; one that
// accepts nothing receives a trickle of probes. A dependency failing at random less than
// 1 - 1/K of its calls (half at K = 2) is never throttled. Unlike an
// all-or-nothing breaker, the refusals grow and shrink with the share the dependency
// accepts: the calls it would have accepted still reach it.
//
// The window is 64 buckets (Settings.Window / 64 each), rolled by the times the caller
// passes in (a reading of a monotonic clock as an offset from an origin fixed for the
// Throttle's life), so a test drives it with a fake clock; below Settings.MinRequests in
// the window nothing is refused. Allow decides a request and counts a refusal; Record
// counts the outcome of a request Allow let through: accepted, or not (a failure that
// says the dependency did not serve it; what says nothing about the dependency, such as
// a bad request, is not recorded at all).
//
// A refusal counts as a request only while the window holds an accept. Counted always,
// the refusals of an outage would keep the probability near 1 after the dependency came
// back; so during a total outage only the probes count, and a probe that is accepted
// brings the refusals back into the count until the accepts outweigh them. After an
// overload in which the dependency accepted a share a < 1/K of the window's requests, a
// recovered dependency (accepting everything again, offered a steady load) sees the
// refusals stop after
//
//	t = (W / K) x ln((1 - a) / ((K - 1) x a))
//
// (W the window): the share of accepts q in the window follows q' = (K x q - a) / W from
// q(0) = a, as the overload's counts age out at rate 1/W and the new ones come in at
// K x q of the offered load, so q(t) = (a / K) x (1 + (K - 1) x e^(K t / W)), which
// reaches 1/K at that t. It holds while t <= W, that is a >= 1 / (1 + (K - 1) e^K)
// (0.12 at K = 2); at K = 2 and a = 1/3 (an offered load three times what the dependency
// accepts) it is W ln 2 / 2, 42 s of the default 2-minute window. After a total outage
// (a = 0, once the refusals counted with the last accepts aged out) the window holds only
// probes, about sqrt(offered x W) of them; the first accept of a recovered dependency
// brings the refusals back into the count, and they fade as the accepts grow: within two
// windows (measured: 1.7 W at K = 2, W = 64 s, 300 calls a second offered).
//
// A Throttle is safe for concurrent use: its counts are under one mutex, held for a few
// additions (an Allow that finds buckets to roll clears them, at most 64), and it
// allocates nothing after New.
package throttle
