package hystrixprom_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/contrib/hystrixprom"
)

// Serve /metrics for a runtime (the README's mountMetrics).
func Example() {
	clk := clock.NewFake(time.Now())                 // so the example need not wait for the metrics' 100 ms bucket
	rt := command.NewRuntime(command.WithClock(clk)) // or command.Default()
	defer rt.Close()
	mux := http.NewServeMux()

	reg := prometheus.NewRegistry() // the program's other metrics, written after rt's
	reg.MustRegister(collectors.NewGoCollector())
	h := hystrixprom.NewHandler(rt, hystrixprom.HandlerOpts{Gatherer: reg}) // reads rt's registries at each scrape
	defer h.Close()
	mux.Handle("/metrics", h)

	_, _ = command.New(command.Setter{Runtime: rt, CommandKey: "GetUser", GroupKey: "UserService"},
		func(context.Context) (string, error) { return "Ada", nil }).Execute(context.Background())
	clk.Advance(time.Second) // cumulative counts move on at the end of a rolling-stats bucket (1 s)
	rt.Metrics().Flush()

	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, `hystrix_command_events_total{command="GetUser",event="success"`) ||
			strings.HasPrefix(line, `hystrix_circuit_breaker_state{command="GetUser",group="UserService",state="closed"`) {
			fmt.Println(line)
		}
	}
	// Output:
	// hystrix_circuit_breaker_state{command="GetUser",group="UserService",state="closed",thread_pool="UserService"} 1
	// hystrix_command_events_total{command="GetUser",event="success",group="UserService",thread_pool="UserService"} 1
}

// Register a Collector in a prometheus.Registry, for a program that serves its metrics
// through one: the same series, at several times the cost of a Handler per scrape.
func ExampleCollector() {
	rt := command.NewRuntime()
	defer rt.Close()
	c := hystrixprom.New(rt)
	defer c.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
}
