package hystrixgrpc

import (
	"context"
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
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Beyond the method's rate, the server answers ResourceExhausted with the retry pushback
// trailer, without calling the handler: unary calls and streams.
func TestServerRateLimitedIsResourceExhaustedWithPushback(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := serveWith(t, svc, &Server{Setter: e.Setter("work", "rateLimit.enabled", "true",
		"rateLimit.permitsPerSecond", "4", "rateLimit.burst", "1")})
	ctx := context.Background()
	_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
	require.NoError(t, err)
	var trailer metadata.MD
	_, err = client.UnaryCall(ctx, &testpb.SimpleRequest{}, grpc.Trailer(&trailer))
	st := status.Convert(err)
	assert.Equal(t, codes.ResourceExhausted, st.Code())
	assert.Contains(t, st.Message(), "rate limited")
	assert.Equal(t, []string{"250"}, trailer.Get(PushbackKey), "a permit every 250 ms")
	assert.EqualValues(t, 1, svc.hits.Load())

	stream, err := client.StreamingOutputCall(ctx, &testpb.StreamingOutputCallRequest{})
	require.NoError(t, err)
	_, err = stream.Recv()
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	assert.Equal(t, []string{"250"}, stream.Trailer().Get(PushbackKey))
	assert.EqualValues(t, 1, svc.hits.Load())

	e.Clock.Advance(250 * time.Millisecond)
	_, err = client.UnaryCall(ctx, &testpb.SimpleRequest{})
	require.NoError(t, err)
	assert.EqualValues(t, 2, e.Count("work", metrics.RateLimited))
}

// The client side: a refused call is not sent, and its error says why and when to retry.
func TestClientRateLimitedIsAClearError(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	client := dial(t, svc, &Client{Setter: e.Setter("backend", "rateLimit.enabled", "true",
		"rateLimit.permitsPerSecond", "10", "rateLimit.burst", "1")})
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	require.NoError(t, err)
	_, err = client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	assert.Equal(t, codes.ResourceExhausted, status.Code(err))
	require.ErrorIs(t, err, command.ErrRateLimited)
	var rl *command.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 100*time.Millisecond, rl.RetryAfter)
	assert.EqualValues(t, 1, svc.hits.Load(), "the refused call was not sent")
}
