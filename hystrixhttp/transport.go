package hystrixhttp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/intercept"
)

// Transport is an http.RoundTripper that runs each request as a command: behind the
// circuit breaker, isolation (SEMAPHORE unless Setter says otherwise), timeout and
// fallback of its command key, with every outcome in the key's metrics. The zero
// Transport protects http.DefaultTransport with one command key per method and host.
//
// What the caller gets:
//   - a response whose status Classify calls a success or a bad request, and a failure
//     response (5xx) that no fallback replaced: the response, as the server sent it;
//   - short circuit, rejection, timeout or transport error without a fallback: a
//     *command.Error (errors.Is(err, command.ErrShortCircuited), ErrSemaphoreRejected,
//     ErrThreadPoolFull, ErrTimeout; the transport error is its cause);
//   - beyond the key's rate limit (rateLimit.* properties) without a fallback: a
//     *command.Error with errors.Is(err, command.ErrRateLimited), whose cause, a
//     *command.RateLimitError, says when to retry (RetryAfter); the request is not sent;
//   - with a Fallback: what it returns, for every failure.
//
// The request's context is the caller's side of the command: its cancellation ends the
// command (CANCELLED, not counted against the breaker), and so does the request's Cancel
// channel (an http.Client.Timeout closes it) or a deadline that passed before the base
// transport answered. The base transport gets the
// run's context, which the timeout cancels, so a timed-out request is abandoned on the
// wire. The timeout covers what RoundTrip waits for: the response headers. The body is
// read after RoundTrip returned, on the caller's time; the caller closes it, as with any
// RoundTripper. A response the caller does not get (a failure the fallback replaced, a
// late answer after the timeout) is closed here, and so is the request body of a request
// that was never sent.
//
// Retries (retry.maxAttempts above 1 in Setter's properties or the key's configuration)
// re-send only what can be sent again: an idempotent request (GET, HEAD, OPTIONS, TRACE,
// PUT, DELETE, or one with an Idempotency-Key or X-Idempotency-Key header, as net/http
// decides; Idempotent can say otherwise) whose body, if any, GetBody can give again
// (http.NewRequest sets it for in-memory bodies). Any other request runs WithoutRetry:
// one attempt, whatever the key's settings. A 429 or 503 with a Retry-After header asks
// the retry to wait that long before the next attempt. On such a key (one that may
// retry and not hedge, with a timeout to bound the read) the body of a failure response
// is read in its attempt's run, up to 64 KiB, and given from memory, so that its connection goes back to the base
// transport drained, to be reused, and none is held through a backoff; the caller or the
// Fallback gets the same bytes. A longer body stays on its connection, and the response
// of a retried attempt is closed here, unread, as the next attempt begins, before its
// request is sent. The last attempt's response is never closed early: a failure no
// fallback replaced reaches the caller whole, and it is the response in the *StatusError
// a Fallback gets (which may return it). A Fallback cannot return an earlier attempt's
// response (one kept through a Classifier or a hook): it is closed by then. On a key that
// may hedge (below), every response is kept as it came until the outcome is decided, as
// a hedge's.
//
// Hedging (hedge.maxHedges above 0) sends the same requests again while the first has
// not answered: only what a retry may re-send; any other request runs one attempt at a
// time. Each attempt keeps its own response: the caller gets the winner's, whole, however
// close the attempts ran, and the hedge cancels every other attempt through its run
// context (its request is abandoned on the wire). A loser's response is closed here,
// unread, once, when the command's outcome is decided: the caller never waits for a
// loser's body, nor does an attempt's goroutine (a streaming body would hold it).
//
// A Transport is safe for concurrent use; its fields must not change once it is in use.
type Transport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Setter holds the runtime, group key, properties and classifier of the commands.
	// Its CommandKey, when set and Key is nil, names the command of every request.
	// Without an execution.isolation.strategy the commands run SEMAPHORE isolated (on
	// the caller's goroutine, at most execution.isolation.semaphore.maxConcurrentRequests
	// at a time, 10 by default). Setter.Classifier, if any, sees what the run returns:
	// the base transport's errors, a *StatusError for a failure status and a
	// command.BadRequest(*StatusError) for a bad-request status.
	Setter command.Setter
	// Key names the command key of a request; nil means Setter.CommandKey or, when that
	// is empty, DefaultKey.
	Key func(*http.Request) string
	// Classify says how a response status counts; nil means DefaultClassify.
	Classify func(status int) command.Class
	// Fallback, if set, answers every failure: a failure status (err is a *StatusError,
	// whose Response it may return or read), a transport error, a timeout, a short
	// circuit or a rejection (errors.Is with the command package's sentinels). It gets
	// the caller's request and must return a response or an error.
	Fallback func(req *http.Request, err error) (*http.Response, error)
	// Idempotent says whether a request may be sent more than once by a retry; nil means
	// DefaultIdempotent. A request whose body cannot be read again is never retried.
	Idempotent func(*http.Request) bool

	completed intercept.Base                  // Setter with the SEMAPHORE default, made on the first call
	kinds     intercept.Kinds[*http.Response] // the Kind of each key, defined on its first request
}

// DefaultKey names a request's command after its method and host, e.g.
// "GET api.example.com:8443".
func DefaultKey(r *http.Request) string { return r.Method + " " + r.URL.Host }

// errAbandoned is what a run returns when its caller has its outcome already (THREAD
// isolation after a timeout): nobody sees it.
var errAbandoned = errors.New("hystrixhttp: the caller no longer waits for this request")

// errNoResponse is the fallback error of a Fallback that returned neither a response
// nor an error.
var errNoResponse = errors.New("hystrixhttp: fallback returned no response and no error")

// RoundTrip sends req as a command of its key (see Transport).
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := intercept.Setter(t.completed.Of(t.Setter), t.Key, DefaultKey, req)
	x := &exchange{t: t, req: req, key: s.CommandKey}
	x.resend = x.resendable()
	if x.key == "" {
		x.key = s.GroupKey // as intercept.Kinds and the command package name it
	}
	cmd := t.kinds.New(s, x.run)
	if t.Fallback != nil {
		cmd.WithFallback(x.fallback)
	}
	ctx := req.Context()
	if !x.resend {
		ctx = command.WithoutRetry(ctx) // and so WithoutHedge
	}
	if req.Cancel != nil { //nolint:staticcheck // net/http still closes it for Client.Timeout
		ctx = cancelChanContext{ctx, req.Cancel} //nolint:staticcheck
	}
	return x.settle(cmd.Execute(ctx))
}

// cancelChanContext is a request's context that also reports the request's Cancel channel:
// net/http closes it for an http.Client.Timeout as well as ending the context, and the
// base transport may return on the channel before the context says it ended. The caller
// gave up either way, so the command is CANCELLED, never a FAILURE. The channel is only
// polled (Err): the base transport, which gets the request with its Cancel channel, is
// what returns when it closes.
type cancelChanContext struct {
	context.Context
	cancel <-chan struct{}
}

// Err returns the context's error, or context.Canceled once the Cancel channel closed.
func (c cancelChanContext) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	select {
	case <-c.cancel:
		return context.Canceled
	default:
		return nil
	}
}

// exchange is one RoundTrip: what its run and its caller share. It owns the response of
// every attempt until that response can no longer be the caller's, or until the
// command's outcome is decided (settle).
//
// When an earlier response can still be the outcome: the retry stage begins an attempt
// only after the attempt before it returned and its failure was decided (a retried
// verdict is never the command's: the outcome is the last attempt's), so as a retry
// begins nothing before it can win, and begin closes it. A hedge runs beside the
// attempts before it and the hedge stage decides between them afterwards: a first
// attempt that answered as the hedge started may still win (or, its failure, be the
// outcome when the hedge ends cancelled), and so may a *StatusError a Classifier calls a
// success. So once hedging can run for the key (hedge.maxHedges above 0 when an attempt
// after the first begins), or attempts overlap (a hedge, or a run a THREAD timeout
// left behind, whose late answer is not the outcome but is kept like the others), every
// response is kept until settle, as before. The property is read as the later attempt
// begins, after the command picked its chain: a key whose hedging is switched off
// during a call is the one case left where a response closed at begin could still have
// won, and only if a hedge began after an earlier attempt's run had returned.
//
// Under THREAD isolation the caller may have its outcome (the timeout) while the run is
// still queued or waiting for the answer; whoever comes second cleans up.
type exchange struct {
	t        *Transport
	req      *http.Request
	key      string // the command key, whose hedge.maxHedges a retry reads
	resend   bool   // the request may be sent again (resendable)
	fellBack bool   // the Fallback ran (on the caller's goroutine)

	mu       sync.Mutex
	settled  bool             // the caller has its outcome
	sent     bool             // the request went to the base transport, which closes its body
	hedged   bool             // attempts may run side by side: responses are kept until settle
	attempts int              // runs begun (a retry or a hedge runs again)
	running  int              // runs begun whose round trip has not returned
	resp     *http.Response   // the first response an attempt got (no slice for a call of one attempt)
	more     []*http.Response // the responses of the other attempts (hedged only)
}

// run is the command's run: one round trip on the run's context, classified.
func (x *exchange) run(ctx context.Context) (*http.Response, error) {
	n, ok := x.begin()
	if !ok {
		return nil, errAbandoned
	}
	resp, err := x.send(ctx, n)
	class, kept := x.arrived(resp)
	if err != nil {
		return nil, err
	}
	if !kept {
		return nil, errAbandoned
	}
	switch class {
	case command.ClassSuccess:
		return resp, nil
	case command.ClassBadRequest:
		return nil, command.BadRequest(&StatusError{Response: resp})
	}
	return nil, pushback(&StatusError{Response: resp})
}

// arrived classifies resp (nil after an error), reads a failure ahead on a key that
// retries (spool: before deliver, while nobody else sees resp), and delivers it. A
// Classify that panics leaves resp delivered all the same, for settle to close.
func (x *exchange) arrived(resp *http.Response) (class command.Class, kept bool) {
	defer func() { kept = x.deliver(resp) }()
	if resp == nil {
		return class, false
	}
	class = classify(x.t.Classify, resp.StatusCode)
	if class == command.ClassFailure && x.resend && x.t.spools(x.key) {
		spool(resp)
	}
	return class, false
}

// send sends attempt n of the request on ctx: a response, or an error and no response.
func (x *exchange) send(ctx context.Context, n int) (*http.Response, error) {
	req := withCriticality(x.req.WithContext(ctx))
	if n > 1 { // a retry: a fresh body (resendable checked that GetBody can give one)
		if err := x.rewind(req); err != nil {
			return nil, err
		}
	}
	resp, err := x.t.base().RoundTrip(req)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// DefaultIdempotent reports whether a request may be sent again, as net/http's Transport
// decides when it retries on a dead connection: GET, HEAD, OPTIONS, TRACE, PUT and DELETE
// are idempotent, and so is a request with an Idempotency-Key or X-Idempotency-Key header.
func DefaultIdempotent(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// resendable reports whether a retry may send the request again: it is idempotent and its
// body, if any, can be read again.
func (x *exchange) resendable() bool {
	idempotent := DefaultIdempotent
	if x.t.Idempotent != nil {
		idempotent = x.t.Idempotent
	}
	if !idempotent(x.req) {
		return false
	}
	return x.req.Body == nil || x.req.Body == http.NoBody || x.req.GetBody != nil
}

// rewind gives a retry's request a fresh body.
func (x *exchange) rewind(req *http.Request) error {
	if x.req.Body == nil || x.req.Body == http.NoBody {
		return nil
	}
	body, err := x.req.GetBody()
	if err != nil {
		return err
	}
	req.Body = body
	return nil
}

// pushback returns se with the wait its response's Retry-After header asks for, on a
// 429 or 503 (seconds or an HTTP date), for the retry to wait instead of its backoff.
func pushback(se *StatusError) error {
	r := se.Response
	if r.StatusCode != http.StatusTooManyRequests && r.StatusCode != http.StatusServiceUnavailable {
		return se
	}
	v := r.Header.Get("Retry-After")
	if v == "" {
		return se
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return command.RetryAfter(se, time.Duration(secs)*time.Second)
	}
	if at, err := http.ParseTime(v); err == nil {
		return command.RetryAfter(se, max(time.Until(at), 0))
	}
	return se
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// begin reports whether the request may still be sent, and which attempt this is. An
// attempt after the first is a retry unless the key may hedge or a run before it has not
// returned (then x.hedged, for good): a retry closes the response of the attempt before
// it, which can no longer be the caller's (see exchange). Without hedging at most one
// response is kept at a time, x.resp: each retry takes it before the next is delivered.
func (x *exchange) begin() (attempt int, ok bool) {
	x.mu.Lock()
	if x.settled {
		x.mu.Unlock()
		return 0, false
	}
	x.sent = true
	x.attempts++
	var retried *http.Response
	if x.attempts > 1 && !x.hedged {
		if x.running > 0 || x.t.hedges(x.key) {
			x.hedged = true
		} else {
			retried, x.resp = x.resp, nil
		}
	}
	x.running++
	n := x.attempts
	x.mu.Unlock()
	if retried != nil {
		retried.Body.Close() // unread: see Transport
	}
	return n, true
}

// hedges reports whether the commands of key may be hedged: its hedge.maxHedges is above
// 0 as its properties stand now, or they cannot be read (nothing is closed early on a
// guess).
func (t *Transport) hedges(key string) bool {
	p, err := t.props(key)
	return err != nil || config.HedgeMaxHedges.In(p).Get() > 0
}

// spools reports whether the failure responses of key are read ahead (spool): it may
// retry (retry.maxAttempts above 1), may not hedge, and has a timeout, which bounds the
// read (execution.timeout.enabled), as its properties stand now.
func (t *Transport) spools(key string) bool {
	p, err := t.props(key)
	return err == nil && config.RetryMaxAttempts.In(p).Get() > 1 && config.HedgeMaxHedges.In(p).Get() == 0 &&
		config.ExecutionTimeoutEnabled.In(p).Get()
}

// props returns the properties of key, the ones its commands run with: the store holds
// one set per key, made by its first definition.
func (t *Transport) props(key string) (*config.CommandProperties, error) {
	s := t.completed.Of(t.Setter)
	rt := s.Runtime
	if rt == nil {
		rt = command.Default()
	}
	return rt.Config().Command(key, s.Properties)
}

// maxSpool bounds how much of a failure response's body spool reads ahead.
const maxSpool = 64 << 10

// spool reads the body of a failure response ahead, at most maxSpool bytes, so that its
// connection goes back to the base transport's pool at once, drained, and is not held
// through a retry's backoff (see Transport); the body then gives the same bytes from
// memory. A longer body (or one whose read fails) gives what was read, then the rest of
// the original (or the read's error), and closes the original when closed.
func spool(resp *http.Response) {
	if resp.ContentLength > maxSpool {
		return // it would not fit: leave it on its connection
	}
	read, err := io.ReadAll(io.LimitReader(resp.Body, maxSpool+1))
	if err == nil && len(read) <= maxSpool {
		resp.Body.Close()
		resp.Body = spooled{Reader: bytes.NewReader(read)}
		return
	}
	rest := io.Reader(resp.Body)
	if err != nil {
		rest = failedRead{err}
	}
	resp.Body = spooled{Reader: io.MultiReader(bytes.NewReader(read), rest), rest: resp.Body}
}

// spooled is a body spool read ahead: the bytes read, then what follows them; rest, the
// original body when spool did not read it to its end, is closed with it.
type spooled struct {
	io.Reader
	rest io.Closer
}

// Close closes the original body, if spool left it open.
func (s spooled) Close() error {
	if s.rest == nil {
		return nil
	}
	return s.rest.Close()
}

// failedRead is a reader that fails with the error that ended spool's read.
type failedRead struct{ err error }

func (f failedRead) Read([]byte) (int, error) { return 0, f.err }

// deliver records that an attempt's round trip returned, and keeps resp, its response
// (nil after an error), until it can no longer be the caller's; false (and the body
// closed) when the caller has its outcome already.
func (x *exchange) deliver(resp *http.Response) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.running--
	if resp == nil {
		return true
	}
	if x.settled {
		resp.Body.Close()
		return false
	}
	if x.resp == nil {
		x.resp = resp
	} else {
		x.more = append(x.more, resp)
	}
	return true
}

// drop closes every response kept but keep, each once; x.mu held.
func (x *exchange) drop(keep *http.Response) {
	if x.resp != nil && x.resp != keep {
		x.resp.Body.Close()
	}
	x.resp = nil
	for i, r := range x.more {
		if r != keep {
			r.Body.Close()
		}
		x.more[i] = nil
	}
	x.more = x.more[:0]
}

// kept reports whether resp is a response an attempt got; x.mu held.
func (x *exchange) kept(resp *http.Response) bool {
	return resp != nil && (resp == x.resp || slices.Contains(x.more, resp))
}

// fallback calls the Transport's Fallback.
func (x *exchange) fallback(_ context.Context, err error) (*http.Response, error) {
	x.fellBack = true
	resp, ferr := x.t.Fallback(x.req, err)
	switch {
	case ferr == nil && resp == nil:
		return nil, errNoResponse
	case ferr != nil && resp != nil && !x.produced(resp):
		resp.Body.Close() // the caller gets the error: nobody else would close it
	}
	return resp, ferr
}

// produced reports whether resp is a response a run got.
func (x *exchange) produced(resp *http.Response) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.kept(resp)
}

// settle turns the command's outcome into RoundTrip's: a failure response no fallback
// replaced goes to the caller as it came; the request body of a request never sent and
// the body of every response kept that the caller does not get (a losing attempt's, a
// retried one's on a key that may hedge, the last one's when the fallback replaced it)
// are closed.
func (x *exchange) settle(resp *http.Response, err error) (*http.Response, error) {
	var se *StatusError
	failed := err != nil && !x.fellBack && errors.As(err, &se)
	x.mu.Lock()
	x.settled = true
	sent := x.sent
	if failed && x.kept(se.Response) {
		resp, err = se.Response, nil
	}
	x.drop(resp)
	x.mu.Unlock()
	if !sent && x.req.Body != nil {
		x.req.Body.Close()
	}
	return resp, err
}
