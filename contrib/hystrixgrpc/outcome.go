package hystrixgrpc

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/intercept"
)

// DefaultClassify is how a status code counts when Client.Classify or Server.Classify is
// nil: OK is a success; InvalidArgument, NotFound, AlreadyExists, PermissionDenied,
// Unauthenticated, FailedPrecondition and OutOfRange are bad requests (the caller's
// mistake: no fallback, no effect on the breaker); every other code (Unavailable,
// DeadlineExceeded, ResourceExhausted, Internal, Unknown, Aborted, Unimplemented,
// DataLoss, Canceled) is a failure.
func DefaultClassify(c codes.Code) command.Class {
	switch c {
	case codes.OK:
		return command.ClassSuccess
	case codes.InvalidArgument, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.Unauthenticated, codes.FailedPrecondition, codes.OutOfRange:
		return command.ClassBadRequest
	}
	return command.ClassFailure
}

// fullMethod names a call's command after its method, "/package.Service/Method".
func fullMethod(method string) string { return method }

// errAbandoned is what a run returns when its caller has its outcome already (THREAD
// isolation after a timeout): nobody sees it.
var errAbandoned = errors.New("hystrixgrpc: the caller no longer waits for this call")

// outcome is what one intercepted call's run records for the interceptor: the run may
// be on a pool goroutine (THREAD isolation), so the interceptor reads it after
// call.End.
type outcome struct {
	call     intercept.Call
	classify func(codes.Code) command.Class
	method   string
	failed   error // the RPC's error, returned by the run as a failure
	business error // the RPC's error, classified as a success
	fellBack bool  // the Fallback ran
}

// runErr turns the error of the RPC (the invoker's, the stream's or the handler's) into
// the run's: nil for a success, BadRequest(err) for a bad request, err for a failure.
// An error classified as a success is kept for the caller.
func (o *outcome) runErr(err error) error {
	if err == nil {
		return nil
	}
	switch o.class(err) {
	case command.ClassSuccess:
		o.business = err
		return nil
	case command.ClassBadRequest:
		return command.BadRequest(err)
	}
	o.failed = err
	return err
}

// class returns how the RPC's error err counts (Classify, or DefaultClassify).
func (o *outcome) class(err error) command.Class {
	if o.classify == nil {
		return DefaultClassify(status.Code(err))
	}
	return o.classify(status.Code(err))
}

// result waits for the run and turns the command's outcome into the interceptor's
// error: the RPC's own error when it failed and no fallback ran, as the server sent it;
// a status error for a refusal, a timeout, a failed fallback or a panic (see
// statusError); a status for the caller's own cancellation.
func (o *outcome) result(ctx context.Context, err error) error {
	o.call.End()
	var ce *command.Error
	switch {
	case err == nil:
		return o.business
	case !o.fellBack && o.failed != nil && errors.As(err, &ce) && ce.Type != command.Timeout && errors.Is(ce.Cause, o.failed):
		return o.failed // (a TIMEOUT matches context.DeadlineExceeded: it is not the RPC's own error)
	case errors.As(err, &ce):
		if pe := panicOf(ce); pe != nil {
			slog.ErrorContext(ctx, "hystrixgrpc: panic", "method", o.method, "panic", pe.Value, "stack", string(pe.Stack))
		}
		return &statusError{ce}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err()
	}
	return err // a bad request: the RPC's own error
}

// panicOf returns the panic of the run (the cause) or of the fallback, if any.
func panicOf(ce *command.Error) *command.PanicError {
	var pe *command.PanicError
	if errors.As(ce.Cause, &pe) || errors.As(ce.FallbackErr, &pe) {
		return pe
	}
	return nil
}

// statusError is a *command.Error with the gRPC status a caller, or the server's
// client, expects: Internal for a panic; the code of the fallback's error when the
// fallback failed with a status; Unavailable for a short circuit, ResourceExhausted for a
// rejection or a rate-limited call, DeadlineExceeded for a timeout; else the code of the
// RPC's error.
// errors.Is(err, command.ErrShortCircuited) and the other sentinels hold.
type statusError struct{ err *command.Error }

func (e *statusError) Error() string { return e.err.Error() }

func (e *statusError) Unwrap() error { return e.err }

// GRPCStatus returns the status (see statusError); status.Code and status.FromError use
// it. A stream limit that ended the call (stream.* properties) is DeadlineExceeded
// (ResourceExhausted for an overflow) with the limit's error as the message, as Client.Stream
// gives its caller.
func (e *statusError) GRPCStatus() *status.Status {
	if l := streamLimit(e.err); l != nil && !e.fallbackStatus() && panicOf(e.err) == nil {
		code := codes.DeadlineExceeded
		if l == command.ErrStreamOverflow {
			code = codes.ResourceExhausted
		}
		return status.New(code, l.Error())
	}
	return status.New(e.code(), e.err.Error())
}

// fallbackStatus reports whether the fallback failed with a status of its own.
func (e *statusError) fallbackStatus() bool {
	_, ok := status.FromError(e.err.FallbackErr)
	return ok && e.err.FallbackErr != nil
}

// streamLimit returns the stream limit that ended the call of err, or nil.
func streamLimit(err error) error {
	for _, l := range []error{command.ErrStreamEstablishTimeout, command.ErrStreamFirstItemTimeout,
		command.ErrStreamIdleTimeout, command.ErrStreamLifetime, command.ErrStreamOverflow} {
		if errors.Is(err, l) {
			return l
		}
	}
	return nil
}

func (e *statusError) code() codes.Code {
	if panicOf(e.err) != nil {
		return codes.Internal
	}
	if e.fallbackStatus() {
		s, _ := status.FromError(e.err.FallbackErr)
		return s.Code()
	}
	switch {
	case errors.Is(e.err, command.ErrShortCircuited), errors.Is(e.err, command.ErrThrottled):
		return codes.Unavailable
	case errors.Is(e.err, command.ErrSemaphoreRejected), errors.Is(e.err, command.ErrThreadPoolFull),
		errors.Is(e.err, command.ErrAdaptiveRejected), errors.Is(e.err, command.ErrRateLimited):
		return codes.ResourceExhausted
	case errors.Is(e.err, command.ErrTimeout):
		return codes.DeadlineExceeded
	}
	if s, ok := status.FromError(e.err.Cause); ok {
		return s.Code()
	}
	return codes.Unknown
}

// PushbackKey is the trailer in which a server tells a client when to retry a call it
// refused: gRPC's retry pushback, in whole milliseconds (gRFC A6).
const PushbackKey = "grpc-retry-pushback-ms"

// pushbackTrailer returns the pushback trailer of a rate-limited call's error: when its limiter
// has a permit again. ok is false for any other error.
func pushbackTrailer(err error) (md metadata.MD, ok bool) {
	var rl *command.RateLimitError
	if !errors.As(err, &rl) {
		return nil, false
	}
	ms := (rl.RetryAfter + time.Millisecond - 1) / time.Millisecond
	return metadata.Pairs(PushbackKey, strconv.FormatInt(int64(ms), 10)), true
}
