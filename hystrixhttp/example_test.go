package hystrixhttp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixhttp"
)

func ExampleTransport() {
	inventory := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	defer inventory.Close()
	rt := command.NewRuntime() // command.Default() in production code
	defer rt.Close()

	client := &http.Client{Transport: &hystrixhttp.Transport{
		Setter: command.Setter{Runtime: rt, GroupKey: "Inventory", Properties: config.Overrides{
			"execution.isolation.thread.timeoutInMilliseconds":    "300",
			"execution.isolation.semaphore.maxConcurrentRequests": "50",
		}},
		// Optional: answer failures (here the 503) with something else.
		Fallback: func(req *http.Request, err error) (*http.Response, error) {
			var se *hystrixhttp.StatusError
			fmt.Println("fallback for", errors.As(err, &se) && se.Response.StatusCode == 503)
			return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
				Body: io.NopCloser(strings.NewReader("stock unknown"))}, nil
		},
	}}

	resp, err := client.Get(inventory.URL + "/stock/42")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
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
			Properties: config.Overrides{"circuitBreaker.forceOpen": "true"}},
	}}
	_, err := client.Get(backend.URL)
	fmt.Println(errors.Is(err, command.ErrShortCircuited))
	// Output: true
}

func ExampleMiddleware_Wrap() {
	rt := command.NewRuntime()
	defer rt.Close()
	api := &hystrixhttp.Middleware{Setter: command.Setter{Runtime: rt, Properties: config.Overrides{
		"execution.isolation.semaphore.maxConcurrentRequests": "200",
		"execution.isolation.thread.timeoutInMilliseconds":    "2000",
	}}}
	// A kill switch: a route whose breaker is held open (dynamically:
	// hystrix.command.<KEY>.circuitBreaker.forceOpen in a config source).
	reports := &hystrixhttp.Middleware{Setter: command.Setter{Runtime: rt,
		Properties: config.Overrides{"circuitBreaker.forceOpen": "true"}}}

	mux := http.NewServeMux()
	mux.Handle("GET /users/{id}", api.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "user %s", r.PathValue("id"))
	})))
	mux.Handle("GET /reports", reports.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "an expensive report")
	})))
	srv := httptest.NewServer(mux)
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
