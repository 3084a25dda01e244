package hystrixgrpc_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixgrpc"
	"github.com/rxhystrix/rxhystrix/internal/doctest"
)

// serveHealth serves a health service ("inventory" is SERVING) with srv on a loopback
// port and returns its address.
func serveHealth(srv *grpc.Server) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	hs := health.NewServer()
	hs.SetServingStatus("inventory", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(ln)
	return ln.Addr().String()
}

// check is the client example of docs/http-and-grpc.md.
func check(rt *command.Runtime, addr string) {
	c := &hystrixgrpc.Client{Setter: command.Setter{Runtime: rt, GroupKey: "Inventory",
		Properties: config.Set(config.ExecutionTimeout.Of(300 * time.Millisecond))}}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(c.Unary), grpc.WithStreamInterceptor(c.Stream))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)

	resp, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "inventory"})
	fmt.Println(resp.GetStatus(), err) // SERVING <nil>
	// NotFound is a bad request: the caller gets it as is, the breaker never counts it.
	_, err = client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "nope"})
	fmt.Println(status.Code(err)) // NotFound
}

func ExampleClient() {
	srv := grpc.NewServer()
	defer srv.Stop()
	addr := serveHealth(srv)
	rt := command.NewRuntime() // command.Default() in production code
	defer rt.Close()

	check(rt, addr)
	// Output:
	// SERVING <nil>
	// NotFound
}

func ExampleClient_shortCircuited() {
	srv := grpc.NewServer()
	defer srv.Stop()
	addr := serveHealth(srv)
	rt := command.NewRuntime()
	defer rt.Close()

	c := &hystrixgrpc.Client{Setter: command.Setter{Runtime: rt, CommandKey: "Health",
		Properties: config.Set(config.CircuitBreakerForceOpen.Of(true))}}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(c.Unary))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	_, err = healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{})
	fmt.Println(status.Code(err), errors.Is(err, command.ErrShortCircuited))
	// Output: Unavailable true
}

// newServer is the server example of docs/http-and-grpc.md.
func newServer(rt *command.Runtime) *grpc.Server {
	s := &hystrixgrpc.Server{Setter: command.Setter{Runtime: rt, Properties: config.Set(
		config.ExecutionMaxConcurrentRequests.Of(100),
	)}}
	return grpc.NewServer(grpc.UnaryInterceptor(s.Unary), grpc.StreamInterceptor(s.Stream))
}

func ExampleServer() {
	rt := command.NewRuntime()
	defer rt.Close()
	srv := newServer(rt)
	defer srv.Stop()
	addr := serveHealth(srv)

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{Service: "inventory"})
	fmt.Println(resp.GetStatus(), err)
	group, _ := rt.CommandKeys("/grpc.health.v1.Health/Check") // one command key per method
	fmt.Println(group)
	// Output:
	// SERVING <nil>
	// /grpc.health.v1.Health/Check
}

// TestDocsShowTheExamples keeps the gRPC examples of docs/http-and-grpc.md identical to
// the compiled ones above.
func TestDocsShowTheExamples(t *testing.T) {
	doctest.AssertShows(t, "../../docs/http-and-grpc.md", "example_test.go", "func check(", "func newServer(")
}
