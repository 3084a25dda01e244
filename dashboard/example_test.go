package dashboard_test

import (
	"log"
	"net/http"

	"github.com/rxhystrix/rxhystrix/dashboard"
)

// Mount the three streams next to the service's own routes, then give the Hystrix
// Dashboard (or Turbine) the URL http://<host>:8080/hystrix.stream.
func ExampleNewStreamHandler() {
	src := dashboard.DefaultRegistries() // the process-wide config, metrics, breakers, pools
	mux := http.NewServeMux()
	mux.Handle("/hystrix.stream", dashboard.NewStreamHandler(src))
	mux.Handle("/hystrix/utilization.stream", dashboard.NewUtilizationHandler(src))
	mux.Handle("/hystrix/config.stream", dashboard.NewConfigHandler(src, dashboard.WithMaxConnections(2)))
	log.Fatal(http.ListenAndServe(":8080", mux))
}

// Serve the dashboard page next to the stream, then open http://<host>:8080/hystrix/.
// Another instance's stream can be summed in: http://<host>:8080/hystrix/?stream=/hystrix.stream&stream=http://other:8080/hystrix.stream
// (the other instance mounts its stream with dashboard.WithAllowOrigin("http://<host>:8080")).
func ExampleNewPageHandler() {
	mux := http.NewServeMux()
	mux.Handle("/hystrix.stream", dashboard.NewStreamHandler(dashboard.DefaultRegistries()))
	mux.Handle("/hystrix/", dashboard.NewPageHandler("/hystrix.stream"))
	log.Fatal(http.ListenAndServe(":8080", mux))
}
