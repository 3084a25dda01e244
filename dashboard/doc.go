// Package dashboard serves the Hystrix metrics streams over Server-Sent Events, so the
// Netflix Hystrix Dashboard and Turbine can watch an rxhystrix process, and a dashboard
// page of its own that shows them:
//
//	/hystrix.stream              NewStreamHandler       every 500 ms: one HystrixCommand,
//	                                                    HystrixThreadPool and HystrixCollapser
//	                                                    frame per key, then a ping
//	/hystrix/utilization.stream  NewUtilizationHandler  every 500 ms: one HystrixUtilization frame
//	/hystrix/config.stream       NewConfigHandler       every 5 s: one HystrixConfig frame
//	/hystrix/                    NewPageHandler         the page (index.html, dashboard.js,
//	                                                    dashboard.css, embedded)
//
// Main types: Handler (the http.Handler of all three streams), Registries (the config,
// metrics and breaker registries the streams read) and Fleet (a Turbine that
// sums the streams of many instances). The frames carry Hystrix's JSON objects
// (HystrixCommand, HystrixThreadPool, HystrixCollapser, HystrixUtilization,
// HystrixConfig) field for field, under Hystrix's names (the repository's
// testdata/dashboard holds samples).
//
// How data flows: every connection is served by its own request goroutine with its own
// timer and reusable buffer; nothing is shared between connections but the registries.
//
//	clock tick (Clock; missed ticks skipped, never queued)
//	    |
//	    v
//	read the objects     ---->  Registries: metrics.Registry.Commands(), HealthCounts,
//	    |                       rolling counts, latency percentiles, breaker IsOpen,
//	    |                       ThreadPoolMetrics.Gauges(), config.Store property values
//	    v
//	stamp type + currentTime; JSON-encode each object as "data: {json}\n\n"; append "ping: \n\n"
//	    |
//	    v
//	one Write + Flush (under a write deadline) --> client
//
// A slow client therefore delays only itself and holds at most one interval's frames; a
// write blocked for longer than the write timeout (WithWriteTimeout, default 10 s) drops
// it, and the drop is logged (WithLogger). When the client disconnects the request
// context ends and ServeHTTP returns at once, freeing its connection slot. Each handler
// admits at most 5 clients at a time (WithMaxConnections); the next one gets HTTP 503
// "MaxConcurrentConnections reached: 5". Only GET streams: every other method, HEAD
// included, gets 405 with "Allow: GET" and takes no slot.
//
// # Usage
//
// Mount the handlers on any mux, next to the service's own routes:
//
//	src := dashboard.DefaultRegistries() // the registries of command.Default()
//	src.CommandKeys = command.Default().CommandKeys // else each command is its own group
//	mux := http.NewServeMux()
//	mux.Handle("/hystrix.stream", dashboard.NewStreamHandler(src))
//	mux.Handle("/hystrix/utilization.stream", dashboard.NewUtilizationHandler(src))
//	mux.Handle("/hystrix/config.stream", dashboard.NewConfigHandler(src))
//	mux.Handle("/hystrix/", dashboard.NewPageHandler("/hystrix.stream"))
//	log.Fatal(http.ListenAndServe(":8080", mux))
//
// # The page
//
// NewPageHandler serves a page that needs nothing else: plain HTML, CSS and script
// embedded in the binary, no CDN, no build step. It opens an EventSource on each stream
// URL it is given (default /hystrix.stream; the page address can list others with
// ?stream=), keeps the latest frame of every name from every stream, and on the next
// animation frame updates only the cards that changed:
//
//	EventSource per stream --JSON frame--> latest frame per (type, name, stream)
//	    --> sum over streams, as Turbine does (counts, percentiles, reportingHosts,
//	        open breakers counted in hosts)
//	    --> per-host values, as Hystrix's dashboard does (error %, latencies and the
//	        window divided by reportingHosts; rate = requests / window)
//	    --> one card per circuit, thread pool and collapser; sort, filter
//
// A stream that fails is reconnected with backoff (1 s doubling to 10 s) under a "Stream
// lost, reconnecting" banner; a stream's frames stop counting 10 s after they came, so a
// lost host leaves the sums. Streams on another origin must send the page's origin in
// Access-Control-Allow-Origin (WithAllowOrigin). The page's script exposes its pure
// functions and counters as window.rxhystrixDashboard for tests and the console.
//
// Or open the Hystrix Dashboard web app (Netflix's hystrix-dashboard or any build of
// it), enter http://<host>:8080/hystrix.stream as the stream and press "Monitor Stream".
// For a cluster, list each instance's /hystrix.stream in Turbine
// (turbine.instanceUrlSuffix=/hystrix.stream) and give the dashboard Turbine's
// /turbine.stream instead; Turbine sums the frames and reportingHosts, and the dashboard
// divides means and percentages by reportingHosts.
//
// # Fleet
//
// Fleet is that Turbine in the library: SetStreams gives it the instances' stream URLs
// (hystrixetcd.WatchInstances follows a registry of them in etcd), one goroutine per
// instance reads its stream and keeps the latest frame per type and name, and
// Fleet.StreamHandler serves the sum every interval, to the page
// (NewPageHandler("/fleet/hystrix.stream")) or to Netflix's dashboard:
//
//	instance streams --one reader each--> latest frame per (type, name, instance)
//	    --every interval--> summed as Turbine does --> aggregated /hystrix.stream
//
// A dropped instance or a broken stream leaves the sums at once.
//
// Before each interval's write the handler sets its own write deadline (WithWriteTimeout),
// which overrides an http.Server WriteTimeout for the stream; with WithWriteTimeout(0) a
// server WriteTimeout would cut the stream after that time. Streams never end on their
// own, so http.Server.Shutdown would wait for them until its context expires: give the
// server a BaseContext that is cancelled when shutdown begins (request contexts derive
// from it, so every stream returns at once), or call Close.
package dashboard
