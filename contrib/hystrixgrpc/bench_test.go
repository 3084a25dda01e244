package hystrixgrpc

import (
	"context"
	"testing"

	"google.golang.org/grpc"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
)

// BenchmarkClientUnary is one unary call through Client.Unary to an invoker that answers
// at once: the cost of a call's command, its key's lookup included.
func BenchmarkClientUnary(b *testing.B) {
	e := cmdtest.New(b)
	c := &Client{Setter: e.Setter("bench", "circuitBreaker.enabled", "false")}
	invoker := func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Unary(ctx, "/bench.Service/Method", nil, nil, nil, invoker); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServerUnary is one unary call through Server.Unary to a handler that answers
// at once.
func BenchmarkServerUnary(b *testing.B) {
	e := cmdtest.New(b)
	s := &Server{Setter: e.Setter("bench", "circuitBreaker.enabled", "false")}
	info := &grpc.UnaryServerInfo{FullMethod: "/bench.Service/Method"}
	handler := func(context.Context, any) (any, error) { return nil, nil }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Unary(ctx, nil, info, handler); err != nil {
			b.Fatal(err)
		}
	}
}
