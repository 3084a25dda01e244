package hystrixgrpc

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/intercept"
)

// Server holds the server interceptors: Unary (a grpc.UnaryServerInterceptor) and
// Stream (a grpc.StreamServerInterceptor) run each handler call inside a command of its
// key, so an overloaded or failing method is refused early:
//
//	srv := grpc.NewServer(grpc.UnaryInterceptor(s.Unary), grpc.StreamInterceptor(s.Stream))
//
// The handler gets the run's context: it ends at the command's timeout (or the client's
// deadline, whichever comes first). The status the handler returns is classified by
// Classify and goes to the client as it is. A short circuit or graded throttling's
// refusal, a rejection or a timeout answers Unavailable, ResourceExhausted or
// DeadlineExceeded (or the Fallback's answer,
// for unary calls); a call beyond the key's rate limit (rateLimit.* properties)
// ResourceExhausted, with the trailer grpc-retry-pushback-ms (PushbackKey) saying when
// the limiter has a permit again; a panic in the handler is a failure answered with Internal, and
// logged with its stack (log/slog), instead of crashing the process. The interceptors
// return only after the handler did, whatever the isolation. Under ADAPTIVE isolation
// each call carries the criticality its CriticalityMetadata names (CRITICAL without one),
// and the lowest is refused first.
//
// A Server is safe for concurrent use; its fields must not change once it is in use.
type Server struct {
	// Setter holds the runtime, group key, properties and classifier of the commands.
	// Its CommandKey, when set and Key is nil, names every call's command. Without an
	// execution.isolation.strategy the commands run SEMAPHORE isolated (on the
	// handler's goroutine, at most execution.isolation.semaphore.maxConcurrentRequests
	// at a time, 10 by default).
	Setter command.Setter
	// Key names the command key of a method ("/package.Service/Method"); nil means
	// Setter.CommandKey or, when that is empty, the method itself.
	Key func(method string) string
	// Classify says how the handler's status code counts; nil means DefaultClassify.
	Classify func(codes.Code) command.Class
	// Fallback, if set, answers a failed unary call instead: err is the handler's error
	// or wraps a sentinel (command.ErrShortCircuited, ErrSemaphoreRejected,
	// ErrThreadPoolFull, ErrAdaptiveRejected, ErrTimeout). Streams have no fallback.
	Fallback func(ctx context.Context, method string, req any, err error) (any, error)

	completed intercept.Base       // Setter with the SEMAPHORE default, made on the first call
	unary     intercept.Kinds[any] // the Kind of each key, defined on its first call
	stream    intercept.Kinds[struct{}]
}

// Unary is a grpc.UnaryServerInterceptor: the handler call is one command execution.
func (s *Server) Unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	u := &unaryHandling{outcome: outcome{classify: s.Classify, method: info.FullMethod}, server: s, req: req, handler: handler}
	cmd := s.unary.New(intercept.Setter(s.completed.Of(s.Setter), s.Key, fullMethod, info.FullMethod), u.run)
	if s.Fallback != nil {
		cmd.WithFallback(u.fallback)
	}
	resp, err := cmd.Execute(callContext(ctx))
	if md, ok := pushbackTrailer(err); ok {
		_ = grpc.SetTrailer(ctx, md)
	}
	return resp, u.result(ctx, err)
}

// unaryHandling is one call through Server.Unary.
type unaryHandling struct {
	outcome
	server  *Server
	req     any
	handler grpc.UnaryHandler
}

func (u *unaryHandling) run(ctx context.Context) (any, error) {
	if !u.call.Begin() {
		return nil, errAbandoned
	}
	defer u.call.Done()
	resp, err := u.handler(ctx, u.req)
	return resp, u.runErr(err)
}

func (u *unaryHandling) fallback(ctx context.Context, err error) (any, error) {
	u.call.End()
	u.fellBack = true
	return u.server.Fallback(ctx, u.method, u.req, err)
}

// Stream is a grpc.StreamServerInterceptor: the handler's whole stream is one command
// execution (it counts once; the timeout bounds its life). The key's stream.* limits
// apply to what the handler sends (SendHeader establishes the stream, each SendMsg is an
// item): a limit that passes ends the handler's context and the stream, and the client
// gets DeadlineExceeded (ResourceExhausted for an overflow) with the limit's error text, as
// Client.Stream gives; otherwise the handler's status goes to the client as it is. A stream
// that fails after a message is a FAILURE marked MID_STREAM_FAILURE (see the package doc).
func (s *Server) Stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	h := &streamHandling{outcome: outcome{classify: s.Classify, method: info.FullMethod}, srv: srv, ss: ss, handler: handler}
	_, err := s.stream.New(intercept.Setter(s.completed.Of(s.Setter), s.Key, fullMethod, info.FullMethod), h.run).Execute(callContext(ss.Context()))
	if md, ok := pushbackTrailer(err); ok {
		ss.SetTrailer(md)
	}
	return h.result(ss.Context(), err)
}

// streamHandling is one stream through Server.Stream.
type streamHandling struct {
	outcome
	srv     any
	ss      grpc.ServerStream
	handler grpc.StreamHandler
}

// run runs the handler under the key's stream limits (command.TrackStream): a limit that
// passes ends the handler's context, and the stream ends with the limit's error.
func (h *streamHandling) run(ctx context.Context) (struct{}, error) {
	if !h.call.Begin() {
		return struct{}{}, errAbandoned
	}
	defer h.call.Done()
	tr := command.TrackStream(ctx)
	defer tr.Stop()
	if expired := tr.Expired(); expired != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-expired:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	err := h.handler(h.srv, &serverStream{ServerStream: h.ss, ctx: ctx, tr: tr})
	if tr.Err() != nil {
		return struct{}{}, tr.Result(nil) // a limit passed: its error, not the handler's
	}
	return struct{}{}, tr.Result(h.runErr(err))
}

// serverStream is the handler's stream with the run's context, reporting what the handler
// sends to the stream's tracker: headers establish the stream, messages are its items
// (the time SendMsg waits for the client is not idle).
type serverStream struct {
	grpc.ServerStream
	ctx context.Context
	tr  *command.StreamTracker
}

func (s *serverStream) Context() context.Context { return s.ctx }

func (s *serverStream) SendHeader(md metadata.MD) error {
	s.tr.Established()
	return s.ServerStream.SendHeader(md)
}

func (s *serverStream) SendMsg(m any) error {
	s.tr.Item()
	defer s.tr.Waiting()
	return s.ServerStream.SendMsg(m)
}
