package hystrixgrpc

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

const unaryMethod = "/grpc.testing.TestService/UnaryCall"

// retrying returns the properties of a key that retries up to 3 attempts without backoff.
func retrying(kv ...string) []string {
	return append([]string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "0",
		"circuitBreaker.enabled", "false"}, kv...)
}

func onlyUnaryCall(m string) bool { return m == unaryMethod }

func TestClientRetriesARetryableMethod(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.failures = 2
	client := dial(t, svc, &Client{Setter: e.Setter("retried", retrying()...), Retryable: onlyUnaryCall})
	resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	require.NoError(t, err)
	assert.Equal(t, "alice", resp.GetUsername())
	assert.EqualValues(t, 3, svc.hits.Load())
	assert.EqualValues(t, 2, e.Count("retried", metrics.Retry))
}

// 10,000 calls of a method not named retryable, against a server that always fails, from
// 8 goroutines: not one is sent twice. The caller gets the server's own status.
func TestClientNeverRetriesAMethodNotNamedRetryable(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.failures = 1 << 30
	client := dial(t, svc, &Client{Setter: e.Setter("once", retrying("execution.isolation.semaphore.maxConcurrentRequests", "100")...),
		Retryable: func(string) bool { return false }})
	const calls, workers = 10_000, 8
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range calls / workers {
				_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
				assert.Equal(t, codes.Unavailable, status.Code(err))
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, calls, svc.hits.Load(), "0 retries of %d calls", calls)
	assert.Zero(t, e.Count("once", metrics.Retry))
}

// The server's grpc-retry-pushback-ms is the wait before the next attempt; a negative
// one stops the retries.
func TestClientWaitsThePushbackTheServerAskedFor(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.failures, svc.pushback = 1, "500"
	client := dial(t, svc, &Client{Setter: e.Setter("pushback", "retry.maxAttempts", "2", "execution.timeout.enabled", "false"),
		Retryable: onlyUnaryCall})
	base := e.Clock.Pending() // the metrics stream's timers
	out := make(chan error, 1)
	go func() {
		_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		out <- err
	}()
	e.Clock.BlockUntil(base + 1)
	e.Clock.Advance(499 * time.Millisecond)
	assert.Equal(t, base+1, e.Clock.Pending(), "still waiting")
	e.Clock.Advance(time.Millisecond)
	require.NoError(t, <-out)
	assert.EqualValues(t, 2, svc.hits.Load())

	svc2 := newService()
	svc2.failures, svc2.pushback = 5, "-1"
	client = dial(t, svc2, &Client{Setter: e.Setter("stop", retrying()...), Retryable: onlyUnaryCall})
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	assert.Equal(t, codes.Unavailable, status.Code(err), "the server's own status")
	assert.EqualValues(t, 1, svc2.hits.Load(), "a negative pushback: no retry")
}
