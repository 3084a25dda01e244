package hystrixgrpc

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// stalling answers every UnaryCall only once the call's context ends.
type stalling struct {
	testpb.UnimplementedTestServiceServer
}

func (stalling) UnaryCall(ctx context.Context, _ *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A caller's own deadline, which gRPC enforces itself and may report before the caller's
// context does, ends the command CANCELLED, never a FAILURE that would count against the
// breaker: 1,000 of 1,000 calls from 50 goroutines at once against a real server on
// 127.0.0.1, under both isolations.
func TestClientCallersOwnDeadlineIsNeverAFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	testpb.RegisterTestServiceServer(srv, stalling{})
	go srv.Serve(ln)
	defer srv.Stop()
	const calls, callers = 1000, 50
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := cmdtest.New(t)
			s := e.Setter("C", "execution.isolation.strategy", iso,
				"execution.isolation.semaphore.maxConcurrentRequests", "1000", "circuitBreaker.enabled", "false")
			s.ThreadPoolProperties = map[string]string{"coreSize": "1000"} // abandoned calls hold a worker until they return
			c := &Client{Setter: s}
			conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithUnaryInterceptor(c.Unary))
			require.NoError(t, err)
			defer conn.Close()
			client := testpb.NewTestServiceClient(conn)
			work := make(chan struct{}, calls)
			for range calls {
				work <- struct{}{}
			}
			close(work)
			var wg sync.WaitGroup
			for range callers {
				wg.Go(func() {
					for range work {
						ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
						_, err := client.UnaryCall(ctx, &testpb.SimpleRequest{})
						cancel()
						assert.Error(t, err)
					}
				})
			}
			wg.Wait()
			e.Await(t, "C", metrics.Cancelled, calls)
			e.Tick(time.Minute)
			m := e.RT.Metrics().Command("C")
			counts := map[string]int64{}
			for _, ev := range metrics.AllEventTypes() {
				if n := m.CumulativeCount(ev); n != 0 {
					counts[ev.String()] = n
				}
			}
			assert.Equal(t, map[string]int64{"CANCELLED": calls}, counts, "every call, and nothing else")
		})
	}
}
