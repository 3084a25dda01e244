package hystrixhttp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixhttp"
	"github.com/rxhystrix/rxhystrix/internal/doctest"
)

// stock is the client example of docs/http-and-grpc.md.
func stock(rt *command.Runtime, inventoryURL string) {
	client := &http.Client{Transport: &hystrixhttp.Transport{
		Setter: command.Setter{Runtime: rt, GroupKey: "Inventory", Properties: config.Set(
			config.ExecutionTimeout.Of(300*time.Millisecond),
			config.ExecutionMaxConcurrentRequests.Of(50),
		)},
		// Optional: answer failures (here the 503) with something else.
		Fallback: func(req *http.Request, err error) (*http.Response, error) {
			var se *hystrixhttp.StatusError
			fmt.Println("fallback for", errors.As(err, &se) && se.Response.StatusCode == 503)
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
				Body: io.NopCloser(strings.NewReader("stock unknown"))}, nil
		},
	}}

	resp, err := client.Get(inventoryURL + "/stock/42") // command key "GET <host>"
	if err != nil {
		fmt.Println(err) // errors.Is(err, command.ErrShortCircuited), ErrTimeout, ...
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body)) // 200 stock unknown
}

func ExampleTransport() {
	inventory := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer inventory.Close()
	rt := command.NewRuntime() // command.Default() in production code
	defer rt.Close()

	stock(rt, inventory.URL)
	// Output:
	// fallback for true
	// 200 stock unknown
}

func ExampleTransport_shortCircuited() {
	backend := httptest.NewServer(http.NotFoundHandler())
	defer backend.Close()
	rt := command.NewRuntime()
	defer rt.Close()

	client := &http.Client{Transport: &hystrixhttp.Transport{
		Setter: command.Setter{Runtime: rt, CommandKey: "Backend",
			Properties: config.Set(config.CircuitBreakerForceOpen.Of(true))},
	}}
	_, err := client.Get(backend.URL)
	fmt.Println(errors.Is(err, command.ErrShortCircuited))
	// Output: true
}

// routes is the server example of docs/http-and-grpc.md.
func routes(rt *command.Runtime) *http.ServeMux {
	api := &hystrixhttp.Middleware{Setter: command.Setter{Runtime: rt, Properties: config.Set(
		config.ExecutionMaxConcurrentRequests.Of(200),
		config.ExecutionTimeout.Of(2*time.Second),
	)}}
	// A kill switch: a route whose breaker is held open (dynamically:
	// hystrix.command.<KEY>.circuitBreaker.forceOpen in a config source).
	reports := &hystrixhttp.Middleware{Setter: command.Setter{Runtime: rt,
		Properties: config.Set(config.CircuitBreakerForceOpen.Of(true))}}

	mux := http.NewServeMux()
	mux.Handle("GET /users/{id}", api.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "user %s", r.PathValue("id")) // 200 "user 7", command key "GET /users/{id}"
	})))
	mux.Handle("GET /reports", reports.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "an expensive report") // never reached: 503, Retry-After: 5
	})))
	return mux
}

func ExampleMiddleware_Wrap() {
	rt := command.NewRuntime()
	defer rt.Close()
	srv := httptest.NewServer(routes(rt))
	defer srv.Close()

	for _, path := range []string{"/users/7", "/reports"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%d %q Retry-After=%q\n", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	group, _ := rt.CommandKeys("GET /users/{id}") // one command key per route
	fmt.Println(group)
	// Output:
	// 200 "user 7" Retry-After=""
	// 503 "Service Unavailable\n" Retry-After="5"
	// GET /users/{id}
}

// TestDocsShowTheExamples keeps the HTTP examples of docs/http-and-grpc.md identical to
// the compiled ones above.
func TestDocsShowTheExamples(t *testing.T) {
	doctest.AssertShows(t, "../docs/http-and-grpc.md", "example_test.go", "func stock(", "func routes(")
}

// StreamTransport runs a streamed (chunked) response as one command spanning its body,
// under the key's stream limits: here a body silent for 200 ms ends with
// command.ErrStreamIdleTimeout.
func ExampleStreamTransport() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 3 {
			fmt.Fprintf(w, "tick %d\n", i)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done() // stalls
	}))
	defer srv.Close()
	rt := command.NewRuntime()
	defer rt.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	client := &http.Client{Transport: &hystrixhttp.StreamTransport{Base: base, Setter: command.Setter{
		Runtime: rt, CommandKey: "ticks", Properties: config.Set(
			config.ExecutionTimeoutEnabled.Of(false), // the stream limits bound it instead
			config.StreamIdleTimeout.Of(200*time.Millisecond),
			config.StreamMaxLifetime.Of(time.Minute),
		)}}}

	resp, err := client.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	fmt.Println(errors.Is(err, command.ErrStreamIdleTimeout))
	// Output:
	// tick 0
	// tick 1
	// tick 2
	// true
}
