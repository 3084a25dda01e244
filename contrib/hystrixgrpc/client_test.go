package hystrixgrpc

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// dial starts svc and returns a client whose calls go through c's interceptors.
func dial(t *testing.T, svc *service, c *Client) testpb.TestServiceClient {
	return start(t, svc, nil, grpc.WithUnaryInterceptor(c.Unary), grpc.WithStreamInterceptor(c.Stream))
}

func TestClientBreakerOpensOnUnavailableAndClosesOnceTheServerRecovers(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Unavailable))
	client := dial(t, svc, &Client{Setter: e.Setter("backend")})
	ctx := context.Background()

	for range 3 {
		_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
		st := status.Convert(err)
		assert.Equal(t, codes.Unavailable, st.Code())
		assert.Equal(t, "service says Unavailable", st.Message(), "the server's error, as it sent it")
	}
	e.Tick(200 * time.Millisecond)

	_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.ErrorIs(t, err, command.ErrShortCircuited)
	assert.EqualValues(t, 3, svc.hits.Load(), "an open breaker keeps calls off the server")

	svc.status.Store(int32(codes.OK))
	e.Tick(time.Second)
	for range 2 {
		resp, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
		require.NoError(t, err)
		assert.Equal(t, "alice", resp.GetUsername())
	}
	assert.EqualValues(t, 5, svc.hits.Load())
	assert.EqualValues(t, 3, e.Count("backend", metrics.Failure))
	assert.EqualValues(t, 1, e.Count("backend", metrics.ShortCircuited))
	assert.EqualValues(t, 2, e.Count("backend", metrics.Success))
}

func TestClientBadRequestCodesNeverOpenTheBreaker(t *testing.T) {
	for _, c := range []codes.Code{codes.InvalidArgument, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.Unauthenticated, codes.FailedPrecondition, codes.OutOfRange} {
		t.Run(c.String(), func(t *testing.T) {
			e := cmdtest.New(t)
			svc := newService()
			svc.status.Store(int32(c))
			client := dial(t, svc, &Client{Setter: e.Setter("backend")})
			for range 5 {
				_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
				assert.Equal(t, c, status.Code(err))
				e.Tick(200 * time.Millisecond)
			}
			assert.EqualValues(t, 5, svc.hits.Load())
			assert.EqualValues(t, 5, e.Count("backend", metrics.BadRequest))
		})
	}
}

func TestClientFailureCodes(t *testing.T) {
	for _, c := range []codes.Code{codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted,
		codes.Internal, codes.Unknown} {
		assert.Equal(t, command.ClassFailure, DefaultClassify(c), c.String())
	}
	assert.Equal(t, command.ClassSuccess, DefaultClassify(codes.OK))
}

func TestClientClassifyMakesABusinessErrorASuccess(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Aborted))
	client := dial(t, svc, &Client{Setter: e.Setter("backend"), Classify: func(c codes.Code) command.Class {
		if c == codes.Aborted {
			return command.ClassSuccess // a lost optimistic-lock race is business as usual
		}
		return DefaultClassify(c)
	}})
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	assert.Equal(t, codes.Aborted, status.Code(err), "the caller still sees the outcome")
	assert.EqualValues(t, 1, e.Count("backend", metrics.Success))
}

func TestClientTimeoutIsTheDeadlineAndCancelsTheCallOnTheServer(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("slow", "execution.isolation.thread.timeoutInMilliseconds", "5000")})

	done := make(chan error, 1)
	before := time.Now()
	go func() {
		_, err := client.EmptyCall(context.Background(), &testpb.Empty{})
		done <- err
	}()
	<-svc.entered
	deadline := <-svc.deadline
	require.False(t, deadline.IsZero(), "the command's timeout reaches the server as the call's deadline")
	assert.WithinDuration(t, before.Add(5*time.Second), deadline, time.Second)

	e.Clock.Advance(5 * time.Second)
	err := <-done
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
	assert.ErrorIs(t, err, command.ErrTimeout)
	select {
	case err := <-svc.ended:
		assert.ErrorIs(t, err, context.Canceled, "the client cancelled the call")
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the call end")
	}
	assert.EqualValues(t, 1, e.Count("slow", metrics.Timeout))
}

func TestClientCallerDeadlineWins(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("slow")}) // 60 s timeout
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	want, _ := ctx.Deadline()
	done := make(chan error, 1)
	go func() {
		_, err := client.EmptyCall(ctx, &testpb.Empty{})
		done <- err
	}()
	assert.WithinDuration(t, want, <-svc.deadline, 100*time.Millisecond)
	cancel()
	assert.Equal(t, codes.Canceled, status.Code(<-done), "the caller's cancellation is a gRPC status")
	assert.EqualValues(t, 1, e.Count("slow", metrics.Cancelled))
	<-svc.ended
}

func TestClientFallbackFillsTheReply(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Internal))
	var causes []error
	client := dial(t, svc, &Client{Setter: e.Setter("backend"),
		Fallback: func(ctx context.Context, method string, req, reply any, err error) error {
			causes = append(causes, err)
			assert.Equal(t, "/grpc.testing.TestService/UnaryCall", method)
			proto.Merge(reply.(proto.Message), &testpb.SimpleResponse{Username: "cached"})
			return nil
		}})
	for range 4 {
		resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		require.NoError(t, err)
		assert.Equal(t, "cached", resp.GetUsername())
		if len(causes) == 3 {
			e.Tick(200 * time.Millisecond)
		}
	}
	require.Len(t, causes, 4)
	assert.Equal(t, codes.Internal, status.Code(causes[0]))
	assert.ErrorIs(t, causes[3], command.ErrShortCircuited)
}

func TestClientFallbackErrorKeepsTheFailureCode(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Unavailable))
	errNoCache := errors.New("nothing cached")
	client := dial(t, svc, &Client{Setter: e.Setter("backend"),
		Fallback: func(context.Context, string, any, any, error) error { return errNoCache }})
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err))
	var ce *command.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, errNoCache, ce.FallbackErr)
}

func TestClientFallbackStatusReachesTheCaller(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("backend", "circuitBreaker.forceOpen", "true"),
		Fallback: func(context.Context, string, any, any, error) error {
			return status.Error(codes.NotFound, "not cached either")
		}})
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	assert.Equal(t, codes.NotFound, status.Code(err), "the fallback chose the status")
	assert.ErrorIs(t, err, command.ErrShortCircuited)
}

func TestClientRejectionIsResourceExhausted(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.inflight, svc.release = make(chan struct{}), make(chan struct{})
	client := dial(t, svc, &Client{Setter: e.Setter("narrow", "execution.isolation.semaphore.maxConcurrentRequests", "1")})
	first := make(chan error, 1)
	go func() {
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		first <- err
	}()
	<-svc.inflight
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.ErrorIs(t, err, command.ErrSemaphoreRejected)
	close(svc.release)
	require.NoError(t, <-first)
}

// TestClientThreadIsolationFallbackWaitsForTheInvoker: under THREAD isolation the
// command gives up at the timeout while the call goes on; the fallback must not fill
// the reply the abandoned invoker may still be writing (the race detector checks).
func TestClientThreadIsolationFallbackWaitsForTheInvoker(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.inflight, svc.release = make(chan struct{}), make(chan struct{})
	client := dial(t, svc, &Client{Setter: e.Setter("pooled",
		"execution.isolation.strategy", "THREAD",
		"execution.isolation.thread.timeoutInMilliseconds", "300",
		"execution.isolation.thread.interruptOnTimeout", "false"),
		Fallback: func(ctx context.Context, method string, req, reply any, err error) error {
			assert.ErrorIs(t, err, command.ErrTimeout)
			r := reply.(*testpb.SimpleResponse)
			r.Username = "fallback:" + r.Username // the invoker is done with it
			return nil
		}})
	done := make(chan *testpb.SimpleResponse, 1)
	go func() {
		resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		assert.NoError(t, err)
		done <- resp
	}()
	<-svc.inflight
	e.Clock.Advance(300 * time.Millisecond)
	close(svc.release) // the server answers after the timeout; the invoker fills the reply
	assert.Equal(t, "fallback:alice", (<-done).GetUsername())
}

func TestClientStreamCountsOnce(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("stream")})

	stream, err := client.StreamingOutputCall(context.Background(), streamSizes(5))
	require.NoError(t, err)
	got := 0
	for {
		_, err := stream.Recv()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got++
	}
	assert.Equal(t, 5, got)
	e.Await(t, "stream", metrics.Success, 1)
	assert.EqualValues(t, 1, e.Count("stream", metrics.Success))
	assert.Zero(t, e.Count("stream", metrics.Emit))
}

// A stream that fails after a message is a FAILURE (marked MID_STREAM_FAILURE), as a
// failure before it is: 3 of them open the breaker. With stream.cutsCountForHealth=false
// (streams cut by design) they are MID_STREAM_FAILURE alone and never open it.
func TestClientStreamFailureOpensTheBreaker(t *testing.T) {
	cut := func(client testpb.TestServiceClient) error {
		stream, err := client.FullDuplexCall(context.Background())
		if err != nil {
			return err
		}
		require.NoError(t, stream.Send(&testpb.StreamingOutputCallRequest{}))
		if _, err := stream.Recv(); err != nil {
			return err
		}
		require.NoError(t, stream.CloseSend())
		_, err = stream.Recv()
		return err
	}
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Unavailable))
	client := dial(t, svc, &Client{Setter: e.Setter("stream")})
	for range 3 {
		assert.Equal(t, codes.Unavailable, status.Code(cut(client)), "the stream's own status")
	}
	e.Settled(t, "stream")
	e.Tick(200 * time.Millisecond)
	err := cut(client)
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.ErrorIs(t, err, command.ErrShortCircuited)
	assert.EqualValues(t, 3, svc.hits.Load())
	assert.EqualValues(t, 3, e.Count("stream", metrics.StreamMidFailure))
	assert.EqualValues(t, 3, e.Count("stream", metrics.Failure))

	watch := dial(t, svc, &Client{Setter: e.Setter("watch", "stream.cutsCountForHealth", "false")})
	for range 6 {
		assert.Equal(t, codes.Unavailable, status.Code(cut(watch)), "the stream's own status")
		e.Tick(200 * time.Millisecond)
	}
	e.Await(t, "watch", metrics.StreamMidFailure, 6)
	assert.EqualValues(t, 6, e.Count("watch", metrics.StreamMidFailure))
	assert.Zero(t, e.Count("watch", metrics.Failure))
	assert.Zero(t, e.Count("watch", metrics.ShortCircuited))
}

func TestClientStreamTimeoutEndsTheStream(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("stream", "execution.isolation.thread.timeoutInMilliseconds", "300")})
	stream, err := client.FullDuplexCall(context.Background())
	require.NoError(t, err)
	require.NoError(t, stream.Send(&testpb.StreamingOutputCallRequest{}))
	_, err = stream.Recv()
	require.NoError(t, err)
	e.Clock.Advance(300 * time.Millisecond)
	_, err = stream.Recv()
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err), "the stream's deadline was the timeout")
	e.Await(t, "stream", metrics.Timeout, 1)
	assert.EqualValues(t, 1, e.Count("stream", metrics.Timeout))
}

func TestClientStreamCallerCancellation(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("stream")})
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := client.FullDuplexCall(ctx)
	require.NoError(t, err)
	cancel()
	_, err = stream.Recv()
	assert.Equal(t, codes.Canceled, status.Code(err))
	e.Await(t, "stream", metrics.Cancelled, 1)
	assert.EqualValues(t, 1, e.Count("stream", metrics.Cancelled))
}

// The client passes the criticality its call's context was given on to the server in
// hystrix-criticality metadata, unary and streaming, so a chain of services sheds the
// same calls first; metadata the caller set stands.
func TestClientPassesTheCriticalityOn(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	seen := make(chan []string, 1)
	capture := func(ctx context.Context) { seen <- metadata.ValueFromIncomingContext(ctx, CriticalityMetadata) }
	svc.unary = func(ctx context.Context, _ int32) (*testpb.SimpleResponse, error) {
		capture(ctx)
		return &testpb.SimpleResponse{}, nil
	}
	streams := grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		capture(ss.Context())
		return h(srv, ss)
	})
	c := &Client{Setter: e.Setter("next")}
	client := start(t, svc, []grpc.ServerOption{streams}, grpc.WithUnaryInterceptor(c.Unary), grpc.WithStreamInterceptor(c.Stream))
	sheddable := adaptive.WithCriticality(context.Background(), adaptive.Sheddable)

	_, err := client.UnaryCall(sheddable, &testpb.SimpleRequest{})
	require.NoError(t, err)
	assert.Equal(t, []string{"SHEDDABLE"}, <-seen)
	_, err = client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	require.NoError(t, err)
	assert.Empty(t, <-seen, "nothing when the context was given none")
	_, err = client.UnaryCall(metadata.AppendToOutgoingContext(sheddable, CriticalityMetadata, "CRITICAL_PLUS"), &testpb.SimpleRequest{})
	require.NoError(t, err)
	assert.Equal(t, []string{"CRITICAL_PLUS"}, <-seen, "the caller's metadata stands")

	stream, err := client.StreamingOutputCall(sheddable, streamSizes(1))
	require.NoError(t, err)
	for {
		if _, err := stream.Recv(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	assert.Equal(t, []string{"SHEDDABLE"}, <-seen)
}
