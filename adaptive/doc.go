// Package adaptive is what users of ADAPTIVE isolation need: the criticality of a call
// and the reasons the limit refuses one.
//
// Under execution.isolation.strategy=ADAPTIVE a command runs on the caller's goroutine
// behind a concurrency limit that learns the dependency's capacity from the latencies and
// outcomes of the calls it admits (package command; the execution.isolation.adaptive.*
// properties choose the algorithm, GRADIENT2 or VEGAS, the limit's range, a queue, the
// shares reserved for each criticality and a group of keys sharing one limit; see
// docs/configuration.md, "ADAPTIVE isolation").
//
// # Criticality
//
// Each call carries a Criticality: CriticalPlus, Critical, SheddablePlus or Sheddable
// (the levels of Google's SRE book), Critical when none is set. WithCriticality gives a
// context one, FromContext reads it and Lookup tells whether one was given; ParseCriticality reads a level's name ("CRITICAL_PLUS", ...).
// hystrixhttp and hystrixgrpc read it from a request and pass it on to the next service
// (the Hystrix-Criticality header, the hystrix-criticality metadata), so the services of
// a call chain shed the same calls first.
//
// Under overload the lowest level is refused first: execution.isolation.adaptive.reserved
// gives each level a share of the limit that the levels below it may not use (by default
// CRITICAL=30,SHEDDABLE_PLUS=20: Sheddable calls use at most half the limit,
// SheddablePlus 70 %, Critical and CriticalPlus all of it).
//
// # Refusals
//
// A call the limit refuses ends ADAPTIVE_REJECTED: its error matches
// command.ErrAdaptiveRejected, and its cause says why, matched with errors.Is: ErrLimit,
// ErrCriticality, ErrQueueFull or ErrQueueTimeout.
//
//	if errors.Is(err, adaptive.ErrCriticality) {
//		// shed for a higher criticality: try again later, or not at all
//	}
package adaptive
