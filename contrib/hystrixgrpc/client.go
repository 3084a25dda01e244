package hystrixgrpc

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/intercept"
)

// Client holds the client interceptors: Unary (a grpc.UnaryClientInterceptor) and
// Stream (a grpc.StreamClientInterceptor) run each call as a command of its key:
//
//	conn, err := grpc.NewClient(target, creds,
//		grpc.WithUnaryInterceptor(c.Unary), grpc.WithStreamInterceptor(c.Stream))
//
// The call gets the run's context, so the command's timeout is the call's deadline
// (sent to the server) and cancels it. What the caller gets: the RPC's own error for a
// bad request, a business outcome or a failure no fallback replaced, as the server sent
// it; for a short circuit or graded throttling's refusal, a rejection or a timeout an
// error with status Unavailable, ResourceExhausted or DeadlineExceeded that wraps the
// command package's sentinel (errors.Is(err, command.ErrShortCircuited)); for a call beyond the key's rate limit
// (rateLimit.* properties) ResourceExhausted wrapping command.ErrRateLimited, whose
// *command.RateLimitError says when to retry. A refused call is never sent.
//
// Retries (retry.maxAttempts above 1) and hedges (hedge.maxHedges above 0) apply only to
// the unary methods Retryable names, as gRPC retries and hedges only the methods its
// service config names: any other call, and every stream, is sent once (WithoutRetry,
// WithoutHedge). Each attempt of such a method fills a reply of its own (a new message
// of the reply's type), so that a hedge that lost, or a timed-out attempt, never writes
// the caller's: the caller's reply gets the winner's, once the call is over. A failed
// attempt whose trailer carries grpc-retry-pushback-ms makes the retry wait that long
// instead of its backoff, and a negative or invalid one stops the retries, as gRPC's
// retry does.
//
// A Client is safe for concurrent use; its fields must not change once it is in use.
type Client struct {
	// Setter holds the runtime, group key, properties and classifier of the commands.
	// Its CommandKey, when set and Key is nil, names every call's command. Without an
	// execution.isolation.strategy the commands run SEMAPHORE isolated (on the caller's
	// goroutine, at most execution.isolation.semaphore.maxConcurrentRequests at a time,
	// 10 by default).
	Setter command.Setter
	// Key names the command key of a method ("/package.Service/Method"); nil means
	// Setter.CommandKey or, when that is empty, the method itself.
	Key func(method string) string
	// Classify says how a status code counts; nil means DefaultClassify.
	Classify func(codes.Code) command.Class
	// Fallback, if set, answers a failed unary call instead: it fills reply, or returns
	// the error the caller gets. err is the RPC's error or wraps a sentinel
	// (command.ErrShortCircuited, ErrSemaphoreRejected, ErrThreadPoolFull, ErrTimeout).
	// It runs once the call is over, so reply is the fallback's alone. Streams have no
	// fallback.
	Fallback func(ctx context.Context, method string, req, reply any, err error) error
	// Retryable says whether a unary method ("/package.Service/Method") is idempotent, so
	// that a retry may call it again; nil means none is.
	Retryable func(method string) bool

	completed intercept.Base              // Setter with the SEMAPHORE default, made on the first call
	unary     intercept.Kinds[unaryReply] // the Kind of each key, defined on its first call
	stream    intercept.Kinds[struct{}]
}

// Unary is a grpc.UnaryClientInterceptor: the call is one command execution.
func (c *Client) Unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
	invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	u := &unaryCall{outcome: outcome{classify: c.Classify, method: method}, client: c,
		req: req, reply: reply, cc: cc, invoker: invoker, opts: opts}
	cmd := c.unary.New(intercept.Setter(c.completed.Of(c.Setter), c.Key, fullMethod, method), u.run)
	if c.Fallback != nil {
		cmd.WithFallback(u.fallback)
	}
	u.again = c.Retryable != nil && c.Retryable(method) && reply != nil && reflect.TypeOf(reply).Kind() == reflect.Pointer
	run := outgoing(ctx)
	if !u.again {
		run = command.WithoutRetry(command.WithoutHedge(run))
	}
	r, err := cmd.Execute(run)
	return u.result(ctx, r, err)
}

// unaryCall is one call through Client.Unary.
type unaryCall struct {
	outcome
	client     *Client
	req, reply any
	cc         *grpc.ClientConn
	invoker    grpc.UnaryInvoker
	opts       []grpc.CallOption
	again      bool // the method may be sent again (Client.Retryable): each attempt has its own reply
}

// unaryReply is what an attempt of a unary call answered: the reply it filled, and the
// RPC's error when the classifier counts it as a success.
type unaryReply struct {
	reply    any
	business error
}

// rpcError is the RPC's own error, when an attempt failed with it: the caller gets it as
// the server sent it unless a fallback answered.
type rpcError struct{ err error }

func (e *rpcError) Error() string { return e.err.Error() }

func (e *rpcError) Unwrap() error { return e.err }

func (u *unaryCall) run(ctx context.Context) (unaryReply, error) {
	if !u.call.Begin() {
		return unaryReply{}, errAbandoned
	}
	defer u.call.Done()
	if !u.again {
		return u.attempt(ctx, u.reply, u.opts)
	}
	var trailer metadata.MD
	r, err := u.attempt(ctx, newReply(u.reply), append(u.opts[:len(u.opts):len(u.opts)], grpc.Trailer(&trailer)))
	if _, failed := err.(*rpcError); failed {
		err = pushback(err, trailer)
	}
	return r, err
}

// attempt sends the call once, filling reply, and classifies its outcome (see rpcError).
func (u *unaryCall) attempt(ctx context.Context, reply any, opts []grpc.CallOption) (unaryReply, error) {
	err := u.invoker(ctx, u.method, u.req, reply, u.cc, opts...)
	switch {
	case err == nil:
		return unaryReply{reply: reply}, nil
	case u.class(err) == command.ClassSuccess:
		return unaryReply{reply: reply, business: err}, nil
	case u.class(err) == command.ClassBadRequest:
		return unaryReply{}, command.BadRequest(err)
	}
	return unaryReply{}, &rpcError{err}
}

// result turns the command's outcome into the interceptor's error, and gives the caller's
// reply the winning attempt's.
func (u *unaryCall) result(ctx context.Context, r unaryReply, err error) error {
	u.call.End()
	var ce *command.Error
	var re *rpcError
	switch {
	case err == nil:
		if r.reply != u.reply {
			copyReply(u.reply, r.reply)
		}
		return r.business
	case !u.fellBack && errors.As(err, &ce) && ce.Type != command.Timeout && errors.As(ce.Cause, &re):
		return re.err
	}
	return u.outcome.result(ctx, err)
}

// newReply returns an empty message of reply's type.
func newReply(reply any) any {
	if m, ok := reply.(proto.Message); ok {
		return m.ProtoReflect().New().Interface()
	}
	return reflect.New(reflect.TypeOf(reply).Elem()).Interface()
}

// copyReply makes dst what src is (both of one type, from newReply).
func copyReply(dst, src any) {
	if m, ok := dst.(proto.Message); ok {
		proto.Reset(m)
		proto.Merge(m, src.(proto.Message))
		return
	}
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

// pushback returns err with the wait the server asked for in its PushbackKey
// trailer (whole milliseconds; negative or invalid: no retry), for the retry to wait
// instead of its backoff.
func pushback(err error, trailer metadata.MD) error {
	v := trailer.Get(PushbackKey)
	if len(v) == 0 {
		return err
	}
	ms, perr := strconv.Atoi(v[0])
	if perr != nil || ms < 0 {
		return command.RetryAfter(err, -1)
	}
	return command.RetryAfter(err, time.Duration(ms)*time.Millisecond)
}

func (u *unaryCall) fallback(ctx context.Context, err error) (unaryReply, error) {
	u.call.End() // an abandoned invoker may still be filling reply
	u.fellBack = true
	return unaryReply{reply: u.reply}, u.client.Fallback(ctx, u.method, u.req, u.reply, err)
}

// Stream is a grpc.StreamClientInterceptor: the stream, from its opening to its final
// status, is one command execution, so it counts once however many messages it
// carries, the timeout bounds its whole life (set it for the longest stream, or turn
// execution.timeout.enabled off for endless ones), and THREAD isolation holds a pool
// goroutine for that long. The stream's final status, which the caller reads from
// RecvMsg, classifies it. A stream the command refuses, or that fails to open, returns
// the error as Unary would. The key's stream.* limits apply (command.TrackStream): the
// stream is established when it opens, its items are the messages RecvMsg returns, the
// idle clock runs while the caller waits in RecvMsg, and a limit that passes ends the
// stream, RecvMsg returning DeadlineExceeded with the limit's error text. A stream that
// fails after a message is a FAILURE marked MID_STREAM_FAILURE (see the package doc).
func (c *Client) Stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s := &streamCall{outcome: outcome{classify: c.Classify, method: method},
		desc: desc, cc: cc, streamer: streamer, opts: opts,
		opened: make(chan grpc.ClientStream, 1), finished: make(chan error, 1)}
	cmd := c.stream.New(intercept.Setter(c.completed.Of(c.Setter), c.Key, fullMethod, method), s.run)
	ended := make(chan error, 1)
	go func() {
		_, err := cmd.Execute(command.WithoutRetry(outgoing(ctx))) // a stream is handed to the caller once
		ended <- err
	}()
	select {
	case cs := <-s.opened:
		return cs, nil
	case err := <-ended:
		if s.abandon() {
			return nil, s.result(ctx, err)
		}
		return <-s.opened, nil // it opened and ended already: its status is the caller's to read
	}
}

// streamCall is one stream through Client.Stream. Its run opens the stream, hands it
// to the caller and waits for its final status; the command runs on a goroutine of its
// own meanwhile.
type streamCall struct {
	outcome
	desc     *grpc.StreamDesc
	cc       *grpc.ClientConn
	streamer grpc.Streamer
	opts     []grpc.CallOption
	opened   chan grpc.ClientStream
	finished chan error // the final status, from grpc.OnFinish

	mu        sync.Mutex
	handed    bool // the caller got the stream
	abandoned bool // the caller got an error: a stream opened later is cancelled
}

func (s *streamCall) run(ctx context.Context) (struct{}, error) {
	if !s.call.Begin() {
		return struct{}{}, errAbandoned
	}
	defer s.call.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tr := command.TrackStream(ctx)
	defer tr.Stop()
	opts := append(s.opts[:len(s.opts):len(s.opts)], grpc.OnFinish(func(err error) { s.finished <- err }))
	cs, err := s.streamer(ctx, s.desc, s.cc, s.method, opts...)
	if err != nil {
		return struct{}{}, s.runErr(err)
	}
	tr.Established()
	if !s.hand() {
		cancel()
		<-s.finished
		return struct{}{}, errAbandoned
	}
	s.opened <- &trackedStream{ClientStream: cs, tr: tr}
	select {
	case err = <-s.finished:
		return struct{}{}, tr.Result(s.runErr(err))
	case <-tr.Expired(): // a phase limit passed: the stream ends with its error
		cancel()
		<-s.finished
		return struct{}{}, tr.Result(nil)
	}
}

// trackedStream is the caller's stream, reporting its messages to the stream's tracker
// (the phase limits of stream.* properties) and ending with the error of a limit that
// passed.
type trackedStream struct {
	grpc.ClientStream
	tr *command.StreamTracker
}

func (t *trackedStream) RecvMsg(m any) error {
	t.tr.Waiting()
	err := t.ClientStream.RecvMsg(m)
	if err == nil {
		t.tr.Item()
	} else if lerr := t.tr.Err(); lerr != nil {
		code := codes.DeadlineExceeded
		if lerr == command.ErrStreamOverflow {
			code = codes.ResourceExhausted
		}
		return status.Error(code, lerr.Error())
	}
	return err
}

// hand reports whether the caller still waits for the stream.
func (s *streamCall) hand() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handed = !s.abandoned
	return s.handed
}

// abandon reports whether the caller gives up on a stream that was not handed over.
func (s *streamCall) abandon() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.abandoned = !s.handed
	return s.abandoned
}
