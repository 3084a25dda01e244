package main

import (
	"net/http"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/dashboard"
)

// dashboardPath is where the demo serves the dashboard page.
const dashboardPath = "/hystrix/"

// newMux serves the dashboard page and the Hystrix dashboard, utilization and
// configuration streams of rt.
func newMux(rt *command.Runtime) *http.ServeMux {
	src := dashboard.Registries{
		Properties: rt.Config(), Metrics: rt.Metrics(), Breakers: rt.Breakers(),
		CommandKeys: rt.CommandKeys,
	}
	mux := http.NewServeMux()
	mux.Handle("/hystrix.stream", dashboard.NewStreamHandler(src))
	mux.Handle("/hystrix/utilization.stream", dashboard.NewUtilizationHandler(src))
	mux.Handle("/hystrix/config.stream", dashboard.NewConfigHandler(src))
	mux.Handle(dashboardPath, dashboard.NewPageHandler("/hystrix.stream"))
	return mux
}
