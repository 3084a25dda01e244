// Package budget caps the extra attempts (retries and hedges) a command key, or a group of
// keys, may make on top of its original requests, so that a brief outage does not become
// a retry storm: without a cap, n attempts per call multiply the load on a failing
// dependency by n just when it can least take it.
//
// Two budgets implement Budget:
//
//   - NewRatio (the default, Envoy's and Finagle's retry budget): over a rolling window of
//     1 s in 10 buckets of 100 ms, the extra attempts are at most a percentage of the
//     original requests, or a minimum per second when that is larger (so a key with
//     little traffic can still retry). With 20 %, at most 1.2 attempts per original
//     whatever the retry and hedge settings ask for, and whatever came before: an outage
//     after any amount of healthy traffic is held to it within one second of its start.
//   - NewTokens (gRPC's retry throttling): a bucket of maxTokens that every failed attempt
//     empties by one and every successful one fills by tokenRatio; extra attempts are
//     allowed while more than half of it is left. It reacts to the dependency's health
//     rather than to the traffic, and needs no clock.
//
// The ratio is the default because it bounds the load a retry adds in the terms an
// operator reasons in (at most x % more requests), at every traffic level, and needs no
// tuning to the dependency's error rate.
//
// Neither takes a lock on its hot path: an original request costs one atomic add (and, once
// per 100 ms, the roll of a bucket under a short lock), an extra attempt a compare-and-swap,
// so a budget shared by many keys and goroutines is exact (no extra attempt beyond it,
// ever) without serialising them.
package budget
