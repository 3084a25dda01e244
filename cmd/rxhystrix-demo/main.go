// Command rxhystrix-demo runs simulated dependencies behind rxhystrix commands, serves
// the dashboard page and the Hystrix dashboard stream and prints a live table of every
// command once a second, so breakers can be watched opening and closing.
//
//	go run ./cmd/rxhystrix-demo -addr 127.0.0.1:7979 -duration 1m -rate 50
//
// Open http://127.0.0.1:7979/hystrix/ in a browser, or point the Hystrix Dashboard at
// http://127.0.0.1:7979/hystrix.stream.
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

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7979", "listen address of the dashboard streams")
	duration := flag.Duration("duration", 0, "run for this long, then exit (0 runs until interrupted)")
	rate := flag.Int("rate", 50, "simulated page requests per second")
	flag.Parse()
	if err := start(*addr, *duration, *rate); err != nil {
		fmt.Fprintln(os.Stderr, "rxhystrix-demo:", err)
		os.Exit(1)
	}
}

// start checks the flags, listens on addr and runs the demo until interrupted or, with a
// positive duration, until it has elapsed.
func start(addr string, duration time.Duration, rate int) error {
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
	return run(ctx, ln, rate, os.Stdout)
}

// run serves the dashboard streams on ln, drives rate pages a second through the
// commands and prints the table to out every second, until ctx ends. It returns when
// everything it started has stopped.
func run(ctx context.Context, ln net.Listener, rate int, out io.Writer) error {
	rt := command.NewRuntime()
	defer rt.Close()

	// Streams never end by themselves: their requests share ctx, so they end with the run.
	srv := &http.Server{
		Handler: newMux(rt), ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(out, "rxhystrix demo: dashboard on http://%s%s\n", ln.Addr(), dashboardPath)
	fmt.Fprintf(out, "rxhystrix demo: dashboard stream on http://%s/hystrix.stream, %d requests/s\n", ln.Addr(), rate)

	began := time.Now()
	var pages sync.WaitGroup
	generated := make(chan struct{})
	go func() {
		defer close(generated)
		generate(ctx, &pages, newServices(rt, began), rate)
	}()

	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			printTable(out, rt, time.Since(began))
		case <-ctx.Done():
			shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := srv.Shutdown(shutdown)
			if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
				err = errors.Join(err, serveErr)
			}
			<-generated
			pages.Wait()
			fmt.Fprintln(out, "rxhystrix demo: stopped")
			return err
		}
	}
}

// maxPagesInFlight bounds the simulated load, so a slow dependency cannot make the demo
// itself pile up goroutines.
const maxPagesInFlight = 500

// generate starts rate pages a second until ctx ends; each page runs with its own
// request context (request cache and log).
func generate(ctx context.Context, pages *sync.WaitGroup, s *services, rate int) {
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
			s.page(reqCtx)
		}()
	}
}
