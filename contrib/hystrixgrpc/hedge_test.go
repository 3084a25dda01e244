package hystrixgrpc

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// hedging returns the properties of a key that hedges once after 50 ms.
func hedging(kv ...string) []string {
	return append([]string{"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "50",
		"circuitBreaker.enabled", "false"}, kv...)
}

func within5s[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(5 * time.Second):
		t.Fatal("nothing within 5 s")
		panic("unreachable")
	}
}

// The first call hangs; 50 ms later (the key's hedge delay) the hedge is answered: the
// caller gets the hedge's reply, and the first call is cancelled on the wire (the server
// sees its context end).
func TestClientHedgesARetryableMethodAndCancelsTheLoser(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	arrived, cancelled := make(chan int32, 4), make(chan int32, 4)
	svc.unary = func(ctx context.Context, hit int32) (*testpb.SimpleResponse, error) {
		arrived <- hit
		if hit == 1 {
			<-ctx.Done()
			cancelled <- hit
			return nil, ctx.Err()
		}
		return &testpb.SimpleResponse{Username: "hedge"}, nil
	}
	client := dial(t, svc, &Client{Setter: e.Setter("hedged", hedging()...), Retryable: onlyUnaryCall})
	base := e.Clock.Pending()
	out := make(chan *testpb.SimpleResponse, 1)
	go func() {
		resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		assert.NoError(t, err)
		out <- resp
	}()
	assert.EqualValues(t, 1, within5s(t, arrived))
	e.Clock.BlockUntil(base + 1) // the hedge's delay
	e.Clock.Advance(50 * time.Millisecond)
	assert.EqualValues(t, 2, within5s(t, arrived))
	assert.Equal(t, "hedge", within5s(t, out).GetUsername())
	assert.EqualValues(t, 1, within5s(t, cancelled), "the loser is cancelled on the wire")
	assert.EqualValues(t, 1, e.Count("hedged", metrics.Hedge))
	assert.EqualValues(t, 1, e.Count("hedged", metrics.Success))
}

// A method Retryable does not name is sent once, however long it takes.
func TestClientNeverHedgesAMethodNotNamedRetryable(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	arrived, release := make(chan int32, 4), make(chan struct{})
	svc.unary = func(_ context.Context, hit int32) (*testpb.SimpleResponse, error) {
		arrived <- hit
		<-release
		return &testpb.SimpleResponse{Username: "once"}, nil
	}
	client := dial(t, svc, &Client{Setter: e.Setter("once", hedging("hedge.delayInMilliseconds", "0")...)})
	out := make(chan *testpb.SimpleResponse, 1)
	go func() {
		resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
		assert.NoError(t, err)
		out <- resp
	}()
	assert.EqualValues(t, 1, within5s(t, arrived))
	e.Clock.Advance(time.Second)
	close(release)
	assert.Equal(t, "once", within5s(t, out).GetUsername())
	assert.EqualValues(t, 1, svc.hits.Load())
	assert.Zero(t, e.Count("once", metrics.Hedge))
}

// Calls hedged after 1 ms of a clock that runs fast, flat out from 8 goroutines, against
// a server that answers every attempt after about a millisecond with a reply of its own:
// each caller gets one attempt's reply whole, never a mix (the race detector watches the
// replies: a loser still being filled while the winner's is copied would be caught), and
// every call succeeds. The calls go on until at least 200 of them were hedged.
func TestClientHedgedRepliesNeverMix(t *testing.T) {
	e := cmdtest.New(t)
	svc := newService()
	svc.unary = func(ctx context.Context, hit int32) (*testpb.SimpleResponse, error) {
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
		}
		n := strconv.Itoa(int(hit))
		return &testpb.SimpleResponse{Username: n, OauthScope: n}, nil
	}
	client := dial(t, svc, &Client{Setter: e.Setter("mixed", hedging("hedge.delayInMilliseconds", "1",
		"budget.enabled", "false", "execution.timeout.enabled", "false",
		"execution.isolation.semaphore.maxConcurrentRequests", "100")...),
		Retryable: onlyUnaryCall})
	stop := e.Clock.Run(time.Millisecond, 100*time.Microsecond) // the runtime's clock runs 10x fast
	const workers = 8
	var calls atomic.Int64
	deadline := time.Now().Add(time.Minute)
	_, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
	require.NoError(t, err)
	calls.Add(1)
	m := e.RT.Metrics().Command("mixed") // after the first call defined the key (see metrics.Registry.Command)
	var callers sync.WaitGroup
	for range workers {
		callers.Go(func() {
			for m.CumulativeCount(metrics.Hedge) < 200 && time.Now().Before(deadline) {
				calls.Add(1)
				resp, err := client.UnaryCall(context.Background(), &testpb.SimpleRequest{})
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, resp.GetUsername(), resp.GetOauthScope(), "one attempt's reply, whole")
			}
		})
	}
	callers.Wait()
	stop()
	hedges := e.Count("mixed", metrics.Hedge)
	t.Logf("%d calls, %d hedged, %d sent", calls.Load(), hedges, svc.hits.Load())
	require.GreaterOrEqual(t, hedges, int64(200), "the contested case happened")
}
