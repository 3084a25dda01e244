package hystrixgrpc

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// serveWith starts svc behind s's interceptors and returns a plain client.
func serveWith(t *testing.T, svc *service, s *Server) testpb.TestServiceClient {
	return start(t, svc, []grpc.ServerOption{grpc.UnaryInterceptor(s.Unary), grpc.StreamInterceptor(s.Stream)})
}

func TestServerBreakerOpensOnAFailingHandlerAndClosesOnceItRecovers(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Unavailable))
	client := serveWith(t, svc, &Server{Setter: e.Setter("")})
	ctx := context.Background()
	for range 3 {
		_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
		assert.Equal(t, "service says Unavailable", status.Convert(err).Message(), "the handler's error goes out as it is")
	}
	e.Tick(200 * time.Millisecond)
	_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
	st := status.Convert(err)
	assert.Equal(t, codes.Unavailable, st.Code())
	assert.Contains(t, st.Message(), "short-circuited")
	assert.EqualValues(t, 3, svc.hits.Load())

	svc.status.Store(int32(codes.OK))
	e.Tick(time.Second)
	_, err = client.UnaryCall(ctx, &testpb.SimpleRequest{})
	require.NoError(t, err)
	const key = "/grpc.testing.TestService/UnaryCall"
	assert.EqualValues(t, 3, e.Count(key, metrics.Failure))
	assert.EqualValues(t, 1, e.Count(key, metrics.ShortCircuited))
	assert.EqualValues(t, 1, e.Count(key, metrics.Success))
}

// A call graded throttling refuses (the handler failing every call, the breaker off)
// is answered Unavailable, naming the refusal, and never reaches the handler.
func TestServerAnswersThrottledWithUnavailable(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Internal))
	client := serveWith(t, svc, &Server{Setter: e.Setter("T", "circuitBreaker.enabled", "false",
		"throttle.enabled", "true", "throttle.minRequests", "4")})
	for i := 0; e.Count("T", metrics.Throttled) == 0; i++ { // refused at random: drive it, bounded
		require.Less(t, i, 1000, "never throttled")
		hits := svc.hits.Load()
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		if st := status.Convert(err); st.Code() != codes.Internal {
			assert.Equal(t, codes.Unavailable, st.Code())
			assert.Contains(t, st.Message(), "throttl")
			assert.Equal(t, hits, svc.hits.Load(), "a refused call never reaches the handler")
		}
	}
}

func TestServerInvalidArgumentNeverOpensTheBreaker(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.InvalidArgument))
	client := serveWith(t, svc, &Server{Setter: e.Setter("work")})
	for range 5 {
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		assert.Equal(t, codes.InvalidArgument, status.Code(err))
		e.Tick(200 * time.Millisecond)
	}
	assert.EqualValues(t, 5, svc.hits.Load())
	assert.EqualValues(t, 5, e.Count("work", metrics.BadRequest))
}

func TestServerTimeoutEndsTheHandler(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("work", "execution.isolation.thread.timeoutInMilliseconds", "300")})
	done := make(chan error, 1)
	go func() {
		_, err := client.EmptyCall(context.Background(), &testpb.Empty{})
		done <- err
	}()
	<-svc.entered
	e.Clock.Advance(300 * time.Millisecond)
	assert.ErrorIs(t, <-svc.ended, context.DeadlineExceeded)
	err := <-done
	st := status.Convert(err)
	assert.Equal(t, codes.DeadlineExceeded, st.Code())
	assert.Contains(t, st.Message(), "timed-out")
	assert.EqualValues(t, 1, e.Count("work", metrics.Timeout))
}

func TestServerFallbackAnswersUnaryCalls(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("work", "circuitBreaker.forceOpen", "true"),
		Fallback: func(ctx context.Context, method string, req any, err error) (any, error) {
			assert.ErrorIs(t, err, command.ErrShortCircuited)
			return &testpb.SimpleResponse{Username: "degraded"}, nil
		}})
	resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	require.NoError(t, err)
	assert.Equal(t, "degraded", resp.GetUsername())
	assert.Zero(t, svc.hits.Load())
}

func TestServerPanicIsInternalAndLogged(t *testing.T) {
	e := cmdtest.New(t)
	var logs syncbuf.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	svc := newService()
	svc.panics.Store(true)
	client := serveWith(t, svc, &Server{Setter: e.Setter("work")})
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	st := status.Convert(err)
	assert.Equal(t, codes.Internal, st.Code())
	assert.Contains(t, st.Message(), "command: panic: boom")
	assert.EqualValues(t, 1, e.Count("work", metrics.Failure))
	assert.Contains(t, logs.String(), "hystrixgrpc: panic")
	assert.Contains(t, logs.String(), "UnaryCall", "the stack names the handler")
}

func TestServerStreamCountsOnce(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("stream")})
	stream, err := client.FullDuplexCall(context.Background())
	require.NoError(t, err)
	for range 5 {
		require.NoError(t, stream.Send(&testpb.StreamingOutputCallRequest{}))
		_, err := stream.Recv()
		require.NoError(t, err)
	}
	require.NoError(t, stream.CloseSend())
	_, err = stream.Recv()
	assert.ErrorIs(t, err, io.EOF)
	assert.EqualValues(t, 1, e.Count("stream", metrics.Success))
}

func TestServerStreamRefusedWhileOpen(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("stream", "circuitBreaker.forceOpen", "true")})
	stream, err := client.StreamingOutputCall(context.Background(), streamSizes(3))
	require.NoError(t, err)
	_, err = stream.Recv()
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.Zero(t, svc.hits.Load())
}

// Under ADAPTIVE isolation the call's hystrix-criticality metadata gives its criticality:
// with a limit of 2, SHEDDABLE calls may use one permit, the others both.
func TestServerTakesTheCriticalityFromTheMetadata(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("work", "execution.isolation.strategy", "ADAPTIVE",
		"execution.isolation.adaptive.minLimit", "2", "execution.isolation.adaptive.initialLimit", "2",
		"execution.isolation.adaptive.maxLimit", "2")})
	sheddable := metadata.AppendToOutgoingContext(context.Background(), CriticalityMetadata, "SHEDDABLE")
	hold, stop := context.WithCancel(sheddable)
	held := make(chan error)
	go func() {
		_, err := client.EmptyCall(hold, &testpb.Empty{}) // blocks until its context ends
		held <- err
	}()
	<-svc.entered
	_, err := client.UnaryCall(sheddable, &testpb.SimpleRequest{})
	assert.Equal(t, codes.ResourceExhausted, status.Code(err), "SHEDDABLE's share is taken")
	_, err = client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	require.NoError(t, err, "CRITICAL without the metadata")
	stop()
	assert.Equal(t, codes.Canceled, status.Code(<-held))
	<-svc.ended
	assert.EqualValues(t, 1, e.Count("work", metrics.AdaptiveRejected))
}
