package hystrixgrpc

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// paced asks StreamingOutputCall for one message after each interval.
func paced(intervals ...time.Duration) *testpb.StreamingOutputCallRequest {
	req := &testpb.StreamingOutputCallRequest{}
	for _, d := range intervals {
		req.ResponseParameters = append(req.ResponseParameters,
			&testpb.ResponseParameters{Size: 1, IntervalUs: int32(d / time.Microsecond)})
	}
	return req
}

// recvWhileAdvancing receives from stream on another goroutine and moves the fake clock
// in steps until the receive returns (bounded), returning its error.
func recvWhileAdvancing(t *testing.T, e *cmdtest.Env, stream testpb.TestService_StreamingOutputCallClient) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := stream.Recv()
		done <- err
	}()
	for range 1000 {
		select {
		case err := <-done:
			return err
		case <-time.After(time.Millisecond):
			e.Clock.Advance(10 * time.Millisecond)
		}
	}
	t.Fatal("the stream never ended")
	return nil
}

// A real server stream that stalls after its first message ends at the idle limit: the
// caller's Recv gets DeadlineExceeded naming the limit, and the key records a FAILURE
// marked IDLE_TIMEOUT and MID_STREAM_FAILURE.
func TestClientStreamIdleTimeout(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("stream", "execution.timeout.enabled", "false",
		"stream.idleTimeoutInMilliseconds", "50")})
	stream, err := client.StreamingOutputCall(context.Background(), paced(0, 30*time.Minute))
	require.NoError(t, err)
	_, err = stream.Recv()
	require.NoError(t, err)
	err = recvWhileAdvancing(t, e, stream)
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
	assert.Contains(t, err.Error(), command.ErrStreamIdleTimeout.Error())
	e.Await(t, "stream", metrics.Failure, 1)
	assert.EqualValues(t, 1, e.Count("stream", metrics.StreamIdleTimeout))
	assert.EqualValues(t, 1, e.Count("stream", metrics.StreamMidFailure))
	assert.EqualValues(t, 1, e.Count("stream", metrics.Failure))
}

// A real server stream whose first message comes after the first-item limit fails as
// establishment: ESTABLISH_TIMEOUT, counted toward the breaker like a unary failure.
func TestClientStreamFirstItemTimeout(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("stream", "execution.timeout.enabled", "false",
		"stream.firstItemTimeoutInMilliseconds", "50")})
	stream, err := client.StreamingOutputCall(context.Background(), paced(30*time.Minute))
	require.NoError(t, err)
	err = recvWhileAdvancing(t, e, stream)
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
	assert.Contains(t, err.Error(), command.ErrStreamFirstItemTimeout.Error())
	e.Await(t, "stream", metrics.StreamEstablishTimeout, 1)
	assert.EqualValues(t, 1, e.Count("stream", metrics.StreamEstablishTimeout))
	assert.Zero(t, e.Count("stream", metrics.StreamMidFailure))
}

// 100 real server streams stall after their first message, on the system clock: each is
// detected at the idle limit, late by at most 10 ms at the median and 50 ms at the 99th
// percentile (measured on the caller). A busy machine may spoil a round: up to five
// rounds are run, and one must meet both bounds.
func TestClientStreamsStalledDetectedAtIdleLimit(t *testing.T) {
	const n, idle = 100, 50 * time.Millisecond
	rt := command.NewRuntime()
	t.Cleanup(rt.Close)
	client := dial(t, newService(), &Client{Setter: command.Setter{Runtime: rt, CommandKey: "stalled",
		Properties: config.Overrides{"execution.isolation.strategy": "SEMAPHORE", "execution.timeout.enabled": "false",
			"execution.isolation.semaphore.maxConcurrentRequests": "1000", "stream.idleTimeoutInMilliseconds": "50"}}})
	for round := 1; ; round++ {
		late := make([]time.Duration, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				stream, err := client.StreamingOutputCall(context.Background(), paced(0, 30*time.Minute))
				if !assert.NoError(t, err) {
					return
				}
				_, err = stream.Recv()
				assert.NoError(t, err)
				got := time.Now()
				_, err = stream.Recv()
				late[i] = time.Since(got) - idle
				assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
			})
		}
		wg.Wait()
		slices.Sort(late)
		med, p99 := late[n/2], late[n*99/100]
		t.Logf("round %d: %d stalled gRPC streams, idle limit %v: detected late by %v median, %v p99", round, n, idle, med, p99)
		assert.GreaterOrEqual(t, late[0], -time.Millisecond, "never before the limit")
		if med <= 10*time.Millisecond && p99 <= 50*time.Millisecond || round == 5 {
			assert.LessOrEqual(t, med, 10*time.Millisecond)
			assert.LessOrEqual(t, p99, 50*time.Millisecond)
			return
		}
	}
}

// A handler that stalls after its first message ends at the idle limit on the server:
// its context ends, the client gets DeadlineExceeded naming the limit (never Unknown with
// the command's text), and the key records a FAILURE marked IDLE_TIMEOUT and
// MID_STREAM_FAILURE.
func TestServerStreamIdleTimeout(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("handler", "execution.timeout.enabled", "false",
		"stream.idleTimeoutInMilliseconds", "50")})
	stream, err := client.StreamingOutputCall(context.Background(), paced(0, 30*time.Minute))
	require.NoError(t, err)
	_, err = stream.Recv()
	require.NoError(t, err)
	err = recvWhileAdvancing(t, e, stream)
	assert.Equal(t, codes.DeadlineExceeded, status.Code(err))
	assert.Equal(t, command.ErrStreamIdleTimeout.Error(), status.Convert(err).Message())
	e.Await(t, "handler", metrics.Failure, 1)
	assert.EqualValues(t, 1, e.Count("handler", metrics.StreamIdleTimeout))
	assert.EqualValues(t, 1, e.Count("handler", metrics.StreamMidFailure))
	assert.EqualValues(t, 1, e.Count("handler", metrics.Failure))
}

// A stream that sends 3 messages and then fails with Unavailable reaches the client with
// the handler's status, and counts on both sides as a FAILURE marked MID_STREAM_FAILURE,
// never a SUCCESS.
func TestBrokenStreamIsAFailureOnBothSides(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.status.Store(int32(codes.Unavailable))
	c, srv := &Client{Setter: e.Setter("client")}, &Server{Setter: e.Setter("handler")}
	client := start(t, svc, []grpc.ServerOption{grpc.StreamInterceptor(srv.Stream)}, grpc.WithStreamInterceptor(c.Stream))
	stream, err := client.StreamingOutputCall(context.Background(), paced(0, 0, 0))
	require.NoError(t, err)
	for range 3 {
		_, err = stream.Recv()
		require.NoError(t, err)
	}
	_, err = stream.Recv()
	assert.Equal(t, codes.Unavailable, status.Code(err))
	assert.Equal(t, "service says Unavailable", status.Convert(err).Message())
	for _, key := range []string{"client", "handler"} {
		e.Await(t, key, metrics.Failure, 1)
		assert.EqualValues(t, 1, e.Count(key, metrics.Failure), key)
		assert.EqualValues(t, 1, e.Count(key, metrics.StreamMidFailure), key)
		assert.Zero(t, e.Count(key, metrics.Success), key)
	}
}
