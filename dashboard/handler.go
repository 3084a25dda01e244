package dashboard

import (
	"net/http"
	"time"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// Handler is an http.Handler that streams Server-Sent Events: every interval it reads
// the current objects and writes one `data: {json}` frame per object and a `ping: `
// keep-alive, until the client goes away. Create it with NewStreamHandler,
// NewUtilizationHandler, NewConfigHandler or Fleet.StreamHandler; mount it on any mux.
//
// Each connection runs in its own request goroutine with its own buffer and timer, so a
// slow client delays only itself: while its write blocks no intervals queue up (missed
// ticks are skipped), and a write blocked longer than the write timeout drops it. Beyond
// the connection limit a request gets 503 "MaxConcurrentConnections reached: N".
type Handler struct {
	s *sse.Handler
}

func newHandler(interval time.Duration, render sse.Render, opts []Option) *Handler {
	return &Handler{s: sse.New(render, newOptions(interval, opts))}
}

// ServeHTTP streams until the request context ends or a write fails. Only GET is
// streamed: any other method, HEAD included, gets 405 and takes no slot (a HEAD response
// ends with its headers, so its client would never end the request).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.s.ServeHTTP(w, r) }

// NewStreamHandler returns the handler of /hystrix.stream: every interval (default
// 500 ms) one HystrixCommand frame per command, one HystrixThreadPool frame per thread
// pool and one HystrixCollapser frame per collapser of src's Metrics, each in key order,
// then a ping. The frames carry Hystrix's field names, type, currentTime (the time of
// the interval, Unix milliseconds) and reportingHosts 1.
func NewStreamHandler(src Registries, opts ...Option) *Handler {
	return newStreamHandler(src.snapshot, opts...)
}

func newStreamHandler(snapshot func() wire.Snapshot, opts ...Option) *Handler {
	return newHandler(sse.DefaultInterval, sse.Snapshots(snapshot), opts)
}

// NewUtilizationHandler returns the handler of /hystrix/utilization.stream: one
// HystrixUtilization frame every interval (default 500 ms), then a ping.
func NewUtilizationHandler(src Registries, opts ...Option) *Handler {
	return newUtilizationHandler(src.utilization, opts...)
}

func newUtilizationHandler(utilization func() wire.Utilization, opts ...Option) *Handler {
	return newHandler(sse.DefaultUtilizationInterval, sse.Utilizations(utilization), opts)
}

// NewConfigHandler returns the handler of /hystrix/config.stream: one HystrixConfig
// frame every interval (default 5000 ms), then a ping.
func NewConfigHandler(src Registries, opts ...Option) *Handler {
	return newConfigHandler(src.config, opts...)
}

func newConfigHandler(config func() wire.Config, opts ...Option) *Handler {
	return newHandler(sse.DefaultConfigInterval, sse.Configs(config), opts)
}
