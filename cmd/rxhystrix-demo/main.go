// Command rxhystrix-demo runs simulated dependencies as HTTP servers on 127.0.0.1, calls
// them through hystrixhttp.Transport (one command key each), serves the dashboard page,
// the Hystrix dashboard stream and Prometheus metrics, and prints a live table of every
// command once a second, so breakers can be watched opening and closing.
//
//	go run . -addr 127.0.0.1:7979 -duration 1m -rate 50 [-trace]
//	         [-etcd 127.0.0.1:2379 -instance a -quorum 2 -lease 5s -fleet-prefix /rxhystrix/fleet/]
//
// Open http://127.0.0.1:7979/hystrix/ in a browser, or point the Hystrix Dashboard at
// http://127.0.0.1:7979/hystrix.stream, and Prometheus at http://127.0.0.1:7979/metrics.
// With -trace every page and every command execution is an OpenTelemetry span, printed
// to stdout as JSON. With -etcd the demo is an instance of a fleet (hystrixetcd): it
// registers its stream, opens a key early when a quorum of other instances have it open,
// and serves the fleet page on /fleet/ over the sum of every registered instance's
// stream (/fleet/hystrix.stream). The demo is a module of its own (cmd/rxhystrix-demo/go.mod), so the
// library's module requires neither client_golang nor the OpenTelemetry SDK.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7979", "listen address of the dashboard streams")
	duration := flag.Duration("duration", 0, "run for this long, then exit (0 runs until interrupted)")
	rate := flag.Int("rate", 50, "simulated page requests per second")
	traces := flag.Bool("trace", false, "print a span per page and per command execution to stdout (OpenTelemetry, JSON)")
	var fc fleetConfig
	fc.register(flag.CommandLine)
	flag.Parse()
	if err := start(*addr, *duration, *rate, *traces, fc); err != nil {
		fmt.Fprintln(os.Stderr, "rxhystrix-demo:", err)
		os.Exit(1)
	}
}

// start checks the flags, listens on addr and runs the demo until interrupted or, with a
// positive duration, until it has elapsed.
func start(addr string, duration time.Duration, rate int, traces bool, fc fleetConfig) error {
	if rate <= 0 {
		return fmt.Errorf("-rate must be positive, got %d", rate)
	}
	if duration < 0 {
		return fmt.Errorf("-duration must not be negative, got %s", duration)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, duration)
		defer cancel()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return run(ctx, ln, rate, traces, fc, os.Stdout)
}

// run serves the dashboard streams and /metrics on ln, drives rate pages a second
// through the commands and prints the table (and with traces the spans) to out every
// second, until ctx ends. With fc's etcd it is an instance of that fleet (fleet.go). It
// returns when everything it started has stopped.
func run(ctx context.Context, ln net.Listener, rate int, traces bool, fc fleetConfig, out io.Writer) error {
	rt := command.NewRuntime()
	defer rt.Close()
	tracer, stopTracing, err := tracing(rt, traces, out)
	if err != nil {
		return errors.Join(err, ln.Close())
	}
	began := time.Now()
	deps, err := newServices(rt, began)
	if err != nil {
		return errors.Join(err, stopTracing(), ln.Close())
	}
	mux := newMux(rt)
	metrics, stopMetrics := metricsHandler(rt)
	defer stopMetrics()
	mux.Handle("/metrics", metrics)
	stopFleet, err := joinFleet(ctx, fc, rt, mux, ln.Addr(), out)
	if err != nil {
		return errors.Join(err, deps.close(), stopTracing(), ln.Close())
	}

	// Streams never end by themselves: their requests share ctx, so they end with the run.
	srv := &http.Server{
		Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(out, "rxhystrix demo: dashboard on http://%s%s\n", ln.Addr(), dashboardPath)
	fmt.Fprintf(out, "rxhystrix demo: dashboard stream on http://%s/hystrix.stream, %d requests/s\n", ln.Addr(), rate)
	fmt.Fprintf(out, "rxhystrix demo: Prometheus metrics on http://%s/metrics\n", ln.Addr())
	deps.tell(out)

	var pages sync.WaitGroup
	generated := make(chan struct{})
	go func() {
		defer close(generated)
		generate(ctx, &pages, deps, rate, tracer)
	}()

	lines := newTable(rt)
	tick := time.NewTimer(untilNextLine(time.Now()))
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			lines.print(out, time.Since(began))
			tick.Reset(untilNextLine(time.Now()))
		case <-ctx.Done():
			shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := srv.Shutdown(shutdown)
			if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
				err = errors.Join(err, serveErr)
			}
			<-generated
			pages.Wait()
			err = errors.Join(err, stopFleet(), deps.close(), stopTracing())
			fmt.Fprintln(out, "rxhystrix demo: stopped")
			return err
		}
	}
}

// maxPagesInFlight bounds the simulated load, so a slow dependency cannot make the demo
// itself pile up goroutines.
const maxPagesInFlight = 500

// generate starts rate pages a second until ctx ends; each page runs with its own
// request context (request cache and log), in a span "page" of tracer.
func generate(ctx context.Context, pages *sync.WaitGroup, s *services, rate int, tracer trace.Tracer) {
	ticker := time.NewTicker(time.Second / time.Duration(rate))
	defer ticker.Stop()
	slots := make(chan struct{}, maxPagesInFlight)
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		select {
		case slots <- struct{}{}:
		default:
			continue // saturated: skip this page rather than queue without bound
		}
		pages.Add(1)
		go func() {
			defer func() { <-slots; pages.Done() }()
			reqCtx, rc := cache.NewRequestContext(ctx)
			defer rc.Close()
			reqCtx, span := tracer.Start(reqCtx, "page")
			defer span.End()
			s.page(reqCtx)
		}()
	}
}
