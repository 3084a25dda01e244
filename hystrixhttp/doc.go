// Package hystrixhttp protects net/http clients and servers with rxhystrix commands, so
// a team adds the breaker, isolation, timeout, fallback and metrics of a command key to
// an existing client or handler in one line. It uses the standard library only.
//
// Main types:
//
//   - Transport: an http.RoundTripper; each request is one command execution.
//   - Middleware: Wrap(next) runs a handler inside a command per request.
//   - StatusError: the run error of a response whose status counts as a failure or a
//     bad request; a Fallback finds it with errors.As.
//   - DefaultClassify, DefaultKey: how statuses count and requests are named unless set.
//   - SSE: the construct and resume of a command.Stream[Event] over a Server-Sent-Events
//     response, so the stream limits, the split of failures by phase and the resume
//     (Last-Event-ID) of command.Stream apply to it.
//   - StreamTransport: an http.RoundTripper for streamed responses (chunked bodies);
//     each request is one command execution spanning its body, under the key's stream
//     limits (command.TrackStream).
//
// Client, one request:
//
//	http.Client ─> Transport.RoundTrip(req) ─> kind(Key(req)).New(run)
//	                                              │ breaker gate, semaphore, timeout
//	                                              v
//	     run(ctx): Base.RoundTrip(req with ctx) ─> Classify(status):
//	               success ─> (resp, nil)
//	               bad request (4xx) ─> BadRequest(*StatusError): no fallback, breaker untouched
//	               failure (5xx, 429) ─> *StatusError ─> FAILURE ─> Fallback if set
//	               transport error ─> FAILURE ─> Fallback if set
//	                                              │
//	     RoundTrip returns: the response (also a 5xx no fallback replaced), the
//	     fallback's answer, or a *command.Error (short circuit, rejection, timeout,
//	     transport error); closes every body the caller does not get
//
// Client, one streamed response (StreamTransport):
//
//	RoundTrip(req) ─> kind(Key(req)).New(run) on a goroutine of its own, not retried
//	     run(ctx): TrackStream(ctx); Base.RoundTrip ─> headers: Established, Classify
//	               hand the response (its Body counts a Read with bytes as an item)
//	               wait: body EOF or Close ─> SUCCESS
//	                     read error ─> FAILURE; after the first bytes marked MID_STREAM_FAILURE
//	                     limit passed ─> request cancelled, Read returns the limit's error:
//	                       ESTABLISH_TIMEOUT before the first bytes (counts like FAILURE),
//	                       else FAILURE + MID_STREAM_FAILURE (+ IDLE_TIMEOUT)
//	                     request context ended ─> CANCELLED
//
// The command's timeout bounds the whole stream: turn execution.timeout.enabled off for
// long streams and bound them with stream.maxLifetimeInMilliseconds. The caller reads the
// body to its end or closes it, as with any RoundTripper; the command ends with it.
//
// Server, one request:
//
//	Wrap(next).ServeHTTP ─> kind(Key(r)).New(run) ─> refused? 503 + Retry-After
//	     run(ctx): next.ServeHTTP(statusWriter, r with ctx) ─> Classify(status written)
//	     a panic: FAILURE, then raised again; a timeout after the first write: aborted
//
// kind(key) is the command.Kind of a key, which each Transport, StreamTransport and
// Middleware defines (command.Define, with its Setter named key) on the key's first
// request and keeps: a request costs a map lookup, not a comparison of its Setter with
// the key's. The keys kept are as many as Key names (unbounded: name them after hosts,
// routes or methods, not after IDs); a Kind outlives its key's eviction for idleness (it
// resolves the key again). A key Define refuses is made per request by
// command.New, as it always was: an invalid Setter fails every request with a
// BAD_REQUEST_EXCEPTION (counted, logged once), and a key the application (or another
// Transport or Middleware) defined with other settings runs on those settings, the
// difference logged once, instead of failing.
//
// Retries and hedges (retry.maxAttempts, hedge.maxHedges) send again only an idempotent
// request whose body can be read again (Transport.Idempotent); any other runs one
// attempt. With a timeout, a failure response's body (up to 64 KiB) is read in its
// attempt and given from memory, so its connection goes back to the pool before the
// retry's backoff; a retried attempt's response is closed here as the next attempt begins
// (it can no longer be the caller's); the last attempt's reaches the caller, or the
// Fallback, whole. A hedged request's attempts each keep their own response until the
// outcome is decided: the caller gets the winner's whole, the others are cancelled
// through their run contexts and their responses closed here, each once. On a key that
// both retries and hedges, every response is kept until the outcome, as a hedge's.
//
// Both default to SEMAPHORE isolation (the call runs on the caller's goroutine, which
// net/http cancels through the context), at most
// execution.isolation.semaphore.maxConcurrentRequests (10) at a time per key: raise it
// for busy keys. Under THREAD isolation the Transport gives the caller its outcome at the
// timeout and closes a late answer itself; the Middleware still waits for the handler to
// return before it answers, because a ResponseWriter must not be used after ServeHTTP
// returns.
//
// Cost: a command execution plus a few allocations per request (see bench/ for the
// overhead over a bare http.Transport, next to failsafe-go's failsafehttp).
package hystrixhttp
