package hystrixgrpc

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Each key is defined once, on its first call, and its later calls are commands of its
// Kind: no call compares the Setter with its key's again. The client's and the server's
// interceptors each keep their own, unary and stream apart.
func TestCallsOfAKeyAreCommandsOfOneKind(t *testing.T) {
	e := cmdtest.New(t)
	c := &Client{Setter: e.Setter("")}
	s := &Server{Setter: e.Setter(""), Key: func(method string) string { return "server " + method }}
	client := start(t, newService(),
		[]grpc.ServerOption{grpc.UnaryInterceptor(s.Unary), grpc.StreamInterceptor(s.Stream)},
		grpc.WithUnaryInterceptor(c.Unary), grpc.WithStreamInterceptor(c.Stream))
	ctx := context.Background()
	for range 4 {
		_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
		require.NoError(t, err)
		stream, err := client.StreamingOutputCall(ctx, streamSizes(2))
		require.NoError(t, err)
		for {
			if _, err := stream.Recv(); err != nil {
				require.ErrorIs(t, err, io.EOF)
				break
			}
		}
	}
	const unary, streaming = "/grpc.testing.TestService/UnaryCall", "/grpc.testing.TestService/StreamingOutputCall"
	e.Settled(t, streaming)
	e.Settled(t, "server "+streaming)
	assert.EqualValues(t, 1, c.unary.Defines(), "Client.Unary: one Define per key")
	assert.EqualValues(t, 1, c.stream.Defines(), "Client.Stream: one Define per key")
	assert.EqualValues(t, 1, s.unary.Defines(), "Server.Unary: one Define per key")
	assert.EqualValues(t, 1, s.stream.Defines(), "Server.Stream: one Define per key")
	assert.NotNil(t, c.unary.Kind(unary))
	assert.NotNil(t, c.stream.Kind(streaming))
	assert.NotNil(t, s.unary.Kind("server "+unary))
	assert.NotNil(t, s.stream.Kind("server "+streaming))
	assert.EqualValues(t, 4, e.Count(unary, metrics.Success))
	assert.EqualValues(t, 4, e.Count("server "+streaming, metrics.Success))
}

// A key the application defined with other settings keeps them: the interceptor's calls
// run on them, as with command.New, instead of failing.
func TestClientOnAKeyTheApplicationDefined(t *testing.T) {
	e := cmdtest.New(t)
	const unary = "/grpc.testing.TestService/UnaryCall"
	_, err := command.Define[int](e.Setter(unary, "execution.isolation.strategy", "THREAD"))
	require.NoError(t, err)
	c := &Client{Setter: e.Setter("")}
	client := dial(t, newService(), c)
	for range 3 {
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		require.NoError(t, err)
	}
	assert.Nil(t, c.unary.Kind(unary), "Define refused the Client's Setter: command.New per call")
	assert.EqualValues(t, 3, e.Count(unary, metrics.Success))
}
