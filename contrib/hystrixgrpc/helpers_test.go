package hystrixgrpc

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// service is the grpc.testing.TestService on a real server: UnaryCall answers with the
// code in status (OK: a response), StreamingOutputCall sends one message per requested
// size (each after its interval) then ends with that code, EmptyCall blocks until its context ends, and
// FullDuplexCall echoes until the client closes.
type service struct {
	testpb.UnimplementedTestServiceServer
	status   atomic.Int32 // a codes.Code
	hits     atomic.Int32
	failures int32                                                                // UnaryCall: its first calls answer Unavailable
	pushback string                                                               // UnaryCall: the grpc-retry-pushback-ms trailer of those answers, if set
	unary    func(ctx context.Context, hit int32) (*testpb.SimpleResponse, error) // UnaryCall answers with it, when set
	panics   atomic.Bool                                                          // UnaryCall panics
	inflight chan struct{}                                                        // UnaryCall: signalled on entry, when set
	release  chan struct{}                                                        // UnaryCall: waits for it, when set
	entered  chan struct{}                                                        // EmptyCall: closed when it starts
	deadline chan time.Time
	ended    chan error // EmptyCall: its context's error when it ends
}

func newService() *service {
	return &service{entered: make(chan struct{}), deadline: make(chan time.Time, 1), ended: make(chan error, 1)}
}

func (s *service) answer() error {
	if c := codes.Code(s.status.Load()); c != codes.OK {
		return status.Error(c, "service says "+c.String())
	}
	return nil
}

func (s *service) UnaryCall(ctx context.Context, req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	hit := s.hits.Add(1)
	if s.unary != nil {
		return s.unary(ctx, hit)
	}
	if hit <= s.failures {
		if s.pushback != "" {
			grpc.SetTrailer(ctx, metadata.Pairs("grpc-retry-pushback-ms", s.pushback))
		}
		return nil, status.Error(codes.Unavailable, "not yet")
	}
	if s.inflight != nil {
		s.inflight <- struct{}{}
	}
	if s.release != nil {
		<-s.release
	}
	if s.panics.Load() {
		panic("boom")
	}
	if err := s.answer(); err != nil {
		return nil, err
	}
	return &testpb.SimpleResponse{Username: "alice"}, nil
}

func (s *service) EmptyCall(ctx context.Context, _ *testpb.Empty) (*testpb.Empty, error) {
	d, _ := ctx.Deadline()
	s.deadline <- d
	close(s.entered)
	<-ctx.Done()
	s.ended <- ctx.Err()
	return nil, ctx.Err()
}

func (s *service) StreamingOutputCall(req *testpb.StreamingOutputCallRequest, stream testpb.TestService_StreamingOutputCallServer) error {
	s.hits.Add(1)
	for _, p := range req.GetResponseParameters() {
		select { // each message after its interval
		case <-time.After(time.Duration(p.GetIntervalUs()) * time.Microsecond):
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
		if err := stream.Send(&testpb.StreamingOutputCallResponse{}); err != nil {
			return err
		}
	}
	return s.answer()
}

func (s *service) FullDuplexCall(stream testpb.TestService_FullDuplexCallServer) error {
	s.hits.Add(1)
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return s.answer()
		}
		if err != nil {
			return err
		}
		if err := stream.Send(&testpb.StreamingOutputCallResponse{Payload: m.GetPayload()}); err != nil {
			return err
		}
	}
}

// start serves svc on a loopback listener with the given server options and returns a
// client connection dialled with the given dial options; both are closed at cleanup.
func start(t *testing.T, svc *service, srvOpts []grpc.ServerOption, dialOpts ...grpc.DialOption) testpb.TestServiceClient {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(srvOpts...)
	testpb.RegisterTestServiceServer(srv, svc)
	go srv.Serve(ln)
	conn, err := grpc.NewClient(ln.Addr().String(),
		append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, dialOpts...)...)
	require.NoError(t, err)
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
	})
	return testpb.NewTestServiceClient(conn)
}

// streamSizes asks StreamingOutputCall for n messages.
func streamSizes(n int) *testpb.StreamingOutputCallRequest {
	req := &testpb.StreamingOutputCallRequest{}
	for range n {
		req.ResponseParameters = append(req.ResponseParameters, &testpb.ResponseParameters{Size: 1})
	}
	return req
}
