// Package hystrixgrpc protects gRPC clients and servers (google.golang.org/grpc) with
// rxhystrix commands: interceptors that run each call inside a command of its key, so
// the breaker, isolation, timeout, fallback and metrics apply without writing a command
// by hand. It is a module of its own (github.com/rxhystrix/rxhystrix/contrib/hystrixgrpc),
// so that users of the core packages never link grpc.
//
// Main types:
//
//   - Client: Unary and Stream, a grpc.UnaryClientInterceptor and a
//     grpc.StreamClientInterceptor.
//   - Server: Unary and Stream, a grpc.UnaryServerInterceptor and a
//     grpc.StreamServerInterceptor.
//   - DefaultClassify: how status codes count unless Classify says otherwise.
//
// One call:
//
//	interceptor ─> kind(Key(method)).New(run) ─> breaker, semaphore, timeout
//	     run(ctx): invoker / streamer / handler with the run's context
//	               (its deadline is the earlier of the caller's and the timeout)
//	          status code ─> Classify: OK ─> SUCCESS
//	                                   InvalidArgument, NotFound, ... ─> BAD_REQUEST
//	                                   Unavailable, Internal, ... ─> FAILURE ─> Fallback (unary)
//	     the caller gets: the RPC's own error, as the server sent it, unless a fallback
//	     answered; a refusal or a timeout as Unavailable / ResourceExhausted /
//	     DeadlineExceeded wrapping the command package's sentinel
//
// kind(key) is the command.Kind of a key, which each interceptor (Client.Unary,
// Client.Stream, Server.Unary, Server.Stream) defines (command.Define, with its Setter
// named key) on the key's first call and keeps: a call costs a map lookup, not a
// comparison of its Setter with the key's. The keys kept are as many as Key names
// (unbounded: name them after methods, not after IDs); a Kind outlives its key's
// eviction for idleness (it resolves the key again). A key Define refuses is made
// per call by command.New, as it always was: an invalid Setter fails every call with a
// BAD_REQUEST_EXCEPTION (counted, logged once), and a key the application (or another
// Client or Server) defined with other settings runs on those settings, the difference
// logged once, instead of failing.
//
// Streams: a stream is one command execution from its opening to its final status (the
// status the caller reads from RecvMsg, reported by grpc.OnFinish on the client), so it
// counts once and the timeout bounds its whole life. A command.Stream would not fit: it
// emits values pushed by an rxgo.Observable, while a gRPC stream is pulled message by
// message by its caller and may send as well; a Command whose run spans the stream keeps
// grpc's own ClientStream in the caller's hands. On the client that run needs a
// goroutine of its own (Execute blocks until the stream ends); the stream itself is
// returned as soon as it is open. The run tracks the stream (command.TrackStream), so the
// key's stream.* limits apply (establishment, first message, idle time between messages,
// lifetime) and a stream that fails after a message is a FAILURE marked MID_STREAM_FAILURE
// (counted against the breaker unless the key sets stream.cutsCountForHealth=false), one
// that fails before a plain FAILURE, as a unary call.
//
// Isolation: SEMAPHORE unless the Setter says otherwise (grpc honours the context, so a
// pool would only add a hand-off). Under THREAD isolation the interceptors still return
// only after the user code they started did (a unary client's Fallback fills reply only
// once the abandoned invoker stopped writing it); a client stream opened after the
// caller gave up is cancelled.
package hystrixgrpc
