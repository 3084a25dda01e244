package hystrixhttp

import (
	"context"
	"io"
	"net/http"
	"sync"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/intercept"
)

// StreamTransport is an http.RoundTripper for streamed responses (chunked bodies, long
// polls, SSE read by hand): the command of a request spans its response body, from the
// request to the body's end, so the key's stream.* limits and the split of failures by
// phase apply to the body (command.TrackStream). The response headers establish the
// stream, each Read that returns bytes is an item, and the idle clock runs while the
// caller waits in Read (the time it holds what it read is not idle).
//
// How a stream ends:
//   - the body's EOF, or the caller closing the body: SUCCESS;
//   - no headers within stream.establishTimeoutInMilliseconds (or no bytes within
//     stream.firstItemTimeoutInMilliseconds): ESTABLISH_TIMEOUT, counted toward the
//     breaker like a unary failure; RoundTrip returns a *command.Error (ErrTimeout), or
//     Read an error that errors.Is the limit's (command.ErrStreamFirstItemTimeout);
//   - a transport error or a failure status (Classify) before the first bytes: FAILURE,
//     as with Transport (the caller gets the failure response as the server sent it);
//   - a read error (a cut) or a limit after the first bytes: a FAILURE marked
//     MID_STREAM_FAILURE (with IDLE_TIMEOUT for the idle limit), which counts against the
//     breaker unless the key sets stream.cutsCountForHealth=false; Read
//     returns the read error, or one that errors.Is the limit's
//     (command.ErrStreamIdleTimeout, ErrStreamLifetime);
//   - the request's context ending (or its Cancel channel closing): CANCELLED.
//
// A limit that passes ends the request on the wire. The command runs on a goroutine of
// its own until the body ends: the caller must read the body to its end or close it, as
// with any RoundTripper. Requests are not retried and have no fallback; the timeout
// (execution.isolation.thread.timeoutInMilliseconds) bounds the whole stream, so turn it
// off (execution.timeout.enabled) and use stream.maxLifetimeInMilliseconds instead.
//
// A StreamTransport is safe for concurrent use; its fields must not change once it is in
// use.
type StreamTransport struct {
	// Base makes the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// Setter holds the runtime, group key and properties of the commands, as for
	// Transport (SEMAPHORE isolation unless it says otherwise).
	Setter command.Setter
	// Key names the command key of a request; nil means Setter.CommandKey or, when that
	// is empty, DefaultKey.
	Key func(*http.Request) string
	// Classify says how a response status counts; nil means DefaultClassify.
	Classify func(status int) command.Class

	completed intercept.Base            // Setter with the SEMAPHORE default, made on the first call
	kinds     intercept.Kinds[struct{}] // the Kind of each key, defined on its first request
}

// RoundTrip sends req as a stream command of its key (see StreamTransport) and returns
// once the response headers came.
func (t *StreamTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s := &streamExchange{t: t, req: req, opened: make(chan *http.Response, 1)}
	cmd := t.kinds.New(intercept.Setter(t.completed.Of(t.Setter), t.Key, DefaultKey, req), s.run)
	ctx := command.WithoutRetry(req.Context()) // a body is handed to the caller once
	if req.Cancel != nil {                     //nolint:staticcheck // net/http still closes it for Client.Timeout
		ctx = cancelChanContext{ctx, req.Cancel} //nolint:staticcheck
	}
	ended := make(chan error, 1)
	go func() {
		_, err := cmd.Execute(ctx)
		ended <- err
	}()
	select {
	case resp := <-s.opened:
		return resp, nil
	case err := <-ended:
		if abandoned, sent := s.abandon(); abandoned {
			if req.Body != nil && !sent {
				req.Body.Close()
			}
			return nil, err
		}
		return <-s.opened, nil // handed already: its body ends with the stream's error
	}
}

// streamExchange is one request through StreamTransport. Its run sends the request, hands
// the response to the caller and waits for the body's end; the command runs on a
// goroutine of its own meanwhile.
type streamExchange struct {
	t      *StreamTransport
	req    *http.Request
	opened chan *http.Response

	mu        sync.Mutex
	sent      bool // the request went to the base transport, which closes its body
	handed    bool // the caller got the response
	abandoned bool // the caller got an error: a response that comes later is closed
}

func (s *streamExchange) run(ctx context.Context) (struct{}, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tr := command.TrackStream(ctx)
	defer tr.Stop()
	if !s.send() {
		return struct{}{}, errAbandoned
	}
	resp, err := s.roundTrip(ctx, cancel, tr)
	if err != nil {
		return struct{}{}, tr.Result(err)
	}
	tr.Established()
	class := classify(s.t.Classify, resp.StatusCode)
	if class != command.ClassSuccess {
		if !s.hand(resp) {
			return struct{}{}, errAbandoned
		}
		if class == command.ClassBadRequest {
			return struct{}{}, command.BadRequest(&StatusError{Response: resp})
		}
		return struct{}{}, &StatusError{Response: resp}
	}
	b := &streamBody{rc: resp.Body, tr: tr, ended: make(chan error, 1)}
	resp.Body = b
	if !s.hand(resp) {
		return struct{}{}, errAbandoned
	}
	select {
	case err = <-b.ended:
	case <-tr.Expired(): // a limit passed: the body's Read returns its error
	case <-ctx.Done(): // the caller's cancellation, or the timeout
		err = ctx.Err()
	}
	cancel() // ends a Read still waiting
	return struct{}{}, tr.Result(err)
}

// roundTrip sends the request on ctx, cancelling it if a limit passes before the
// response headers come.
func (s *streamExchange) roundTrip(ctx context.Context, cancel context.CancelFunc,
	tr *command.StreamTracker) (*http.Response, error) {
	if exp := tr.Expired(); exp != nil {
		got := make(chan struct{})
		defer close(got)
		go func() {
			select {
			case <-exp:
				cancel()
			case <-got:
			}
		}()
	}
	return s.t.base().RoundTrip(s.req.WithContext(ctx))
}

// send reports whether the request may still be sent.
func (s *streamExchange) send() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = !s.abandoned
	return s.sent
}

// hand gives resp to the caller; false (and the body closed) when the caller has its
// outcome already.
func (s *streamExchange) hand(resp *http.Response) bool {
	s.mu.Lock()
	s.handed = !s.abandoned
	s.mu.Unlock()
	if !s.handed {
		resp.Body.Close()
		return false
	}
	s.opened <- resp
	return true
}

// abandon reports whether the caller gives up on a response that was not handed over,
// and whether the request was sent.
func (s *streamExchange) abandon() (abandoned, sent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.abandoned = !s.handed
	return s.abandoned, s.sent
}

func (t *StreamTransport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// streamBody is the caller's body of a streamed response: it reports its reads to the
// stream's tracker and its end to the run.
type streamBody struct {
	rc    io.ReadCloser
	tr    *command.StreamTracker
	ended chan error // the body's end: nil for EOF or Close, else the read error
	once  sync.Once
}

// Read reads from the response body; once a limit passed, its error is the limit's.
func (b *streamBody) Read(p []byte) (int, error) {
	b.tr.Waiting()
	n, err := b.rc.Read(p)
	if n > 0 {
		b.tr.Item()
	}
	if err != nil {
		if lerr := b.tr.Err(); lerr != nil {
			err = lerr
		}
		b.end(err)
	}
	return n, err
}

// Close closes the response body and ends the stream, if it has not ended.
func (b *streamBody) Close() error {
	b.end(nil)
	return b.rc.Close()
}

func (b *streamBody) end(err error) {
	if err == io.EOF {
		err = nil
	}
	b.once.Do(func() { b.ended <- err })
}
