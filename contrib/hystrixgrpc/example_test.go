package hystrixgrpc_test

import (
	"context"
	"errors"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixgrpc"
)

// serveHealth serves a health service on a loopback port with the given options.
func serveHealth(opts ...grpc.ServerOption) (addr string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := grpc.NewServer(opts...)
	hs := health.NewServer()
	hs.SetServingStatus("inventory", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(srv, hs)
	go srv.Serve(ln)
	return ln.Addr().String(), srv.Stop
}

func ExampleClient() {
	addr, stop := serveHealth()
	defer stop()
	rt := command.NewRuntime() // command.Default() in production code
	defer rt.Close()

	c := &hystrixgrpc.Client{Setter: command.Setter{Runtime: rt, GroupKey: "Inventory",
		Properties: config.Overrides{"execution.isolation.thread.timeoutInMilliseconds": "300"}}}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(c.Unary), grpc.WithStreamInterceptor(c.Stream))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	client := healthpb.NewHealthClient(conn)

	resp, err := client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "inventory"})
	fmt.Println(resp.GetStatus(), err)
	// NotFound is a bad request: the caller gets it as is, the breaker never counts it.
	_, err = client.Check(context.Background(), &healthpb.HealthCheckRequest{Service: "nope"})
	fmt.Println(status.Code(err))
	// Output:
	// SERVING <nil>
	// NotFound
}

func ExampleServer() {
	rt := command.NewRuntime()
	defer rt.Close()
	s := &hystrixgrpc.Server{Setter: command.Setter{Runtime: rt, Properties: config.Overrides{
		"execution.isolation.semaphore.maxConcurrentRequests": "100",
		"circuitBreaker.forceOpen":                            "true", // refuse everything, to show it
	}}}
	addr, stop := serveHealth(grpc.UnaryInterceptor(s.Unary), grpc.StreamInterceptor(s.Stream))
	defer stop()

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	_, err = healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{Service: "inventory"})
	fmt.Println(status.Code(err))
	fmt.Println(status.Convert(err).Message())
	// Output:
	// Unavailable
	// /grpc.health.v1.Health/Check short-circuited and no fallback available (cause: command: short-circuited and is OPEN)
}

func ExampleClient_shortCircuited() {
	addr, stop := serveHealth()
	defer stop()
	rt := command.NewRuntime()
	defer rt.Close()
	c := &hystrixgrpc.Client{Setter: command.Setter{Runtime: rt, CommandKey: "Health",
		Properties: config.Overrides{"circuitBreaker.forceOpen": "true"}}}
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
