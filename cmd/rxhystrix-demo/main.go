// Command rxhystrix-demo runs simulated dependencies behind rxhystrix commands, serves
// the Hystrix dashboard stream and prints a live table of every command once a second,
// so breakers can be watched opening and closing.
//
//	go run ./cmd/rxhystrix-demo -addr 127.0.0.1:7979 -duration 1m -rate 50
//
// Point the Hystrix Dashboard at http://127.0.0.1:7979/hystrix.stream.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
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
	if err := run(*addr, *duration, *rate); err != nil {
		fmt.Fprintln(os.Stderr, "rxhystrix-demo:", err)
		os.Exit(1)
	}
}

func run(addr string, duration time.Duration, rate int) error {
	if rate <= 0 {
		return fmt.Errorf("-rate must be positive, got %d", rate)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, duration)
		defer cancel()
	}

	rt := command.NewRuntime()
	defer rt.Close()

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	// Streams never end by themselves: their requests share ctx, so they end with the run.
	srv := &http.Server{
		Handler: newMux(rt), ReadHeaderTimeout: 5 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("dashboard server", "err", err)
		}
	}()
	fmt.Printf("rxhystrix demo: dashboard stream on http://%s/hystrix.stream, %d requests/s\n", ln.Addr(), rate)

	start := time.Now()
	var pages sync.WaitGroup
	generated := make(chan struct{})
	go func() {
		defer close(generated)
		generate(ctx, &pages, newServices(rt, start), rate)
	}()

	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			printTable(os.Stdout, rt, time.Since(start))
		case <-ctx.Done():
			shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := srv.Shutdown(shutdown)
			<-generated
			pages.Wait()
			fmt.Println("rxhystrix demo: stopped")
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
