// Package sse is the engine of package dashboard's stream handlers: it serves
// Server-Sent Events, one set of frames per interval per connection, and stamps the
// Hystrix objects of package wire into them. Package dashboard wraps it in its exported
// Handler and feeds it from the library's registries; the browser tests in dashboard/e2e
// feed it synthetic snapshots.
package sse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
)

// Defaults of the stream handlers: Hystrix's values (Hystrix has no write timeout).
const (
	DefaultInterval            = 500 * time.Millisecond  // /hystrix.stream
	DefaultUtilizationInterval = 500 * time.Millisecond  // /hystrix/utilization.stream
	DefaultConfigInterval      = 5000 * time.Millisecond // /hystrix/config.stream
	DefaultMaxConnections      = 5
	DefaultWriteTimeout        = 10 * time.Second
)

// Settings are a handler's settings (package dashboard's options set them).
type Settings struct {
	Interval     time.Duration // between two frame sets
	MaxConns     int           // clients streaming at once
	WriteTimeout time.Duration // how long one interval's write may block; 0: no limit
	Clock        clock.Clock   // paces the intervals, stamps currentTime
	Log          *slog.Logger  // dropped clients, unencodable frames
	AllowOrigin  string        // Access-Control-Allow-Origin; "" sends none
}

// NewSettings returns the default settings with interval.
func NewSettings(interval time.Duration) Settings {
	return Settings{
		Interval:     interval,
		MaxConns:     DefaultMaxConnections,
		WriteTimeout: DefaultWriteTimeout,
		Clock:        clock.System(),
		Log:          slog.Default(),
	}
}

// Render appends one interval's data frames; now is the Clock's time of the interval.
type Render func(f *Frames, now time.Time)

// Handler is an http.Handler that streams Server-Sent Events: every interval it renders
// the current frames, then a `ping: ` keep-alive, until the client goes away.
//
// Each connection runs in its own request goroutine with its own buffer and timer, so a
// slow client delays only itself: while its write blocks no intervals queue up (missed
// ticks are skipped), and a write blocked longer than the write timeout drops it. Beyond
// the connection limit a request gets 503 "MaxConcurrentConnections reached: N".
type Handler struct {
	opts   Settings
	render Render
	conns  atomic.Int64
}

// New returns a handler that renders each interval with render.
func New(render Render, s Settings) *Handler {
	return &Handler{opts: s, render: render}
}

// Settings returns the handler's settings.
func (h *Handler) Settings() Settings { return h.opts }

// Connections returns the number of clients streaming now.
func (h *Handler) Connections() int { return int(h.conns.Load()) }

// ServeHTTP streams until the request context ends or a write fails. Only GET is
// streamed: any other method, HEAD included, gets 405 and takes no slot (a HEAD response
// ends with its headers, so its client would never end the request).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed: "+r.Method, http.StatusMethodNotAllowed)
		return
	}
	if h.conns.Add(1) > int64(h.opts.MaxConns) {
		h.conns.Add(-1)
		h.reject(w)
		return
	}
	defer h.conns.Add(-1)

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream;charset=UTF-8")
	hdr.Set("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
	hdr.Set("Pragma", "no-cache")
	if h.opts.AllowOrigin != "" {
		hdr.Set("Access-Control-Allow-Origin", h.opts.AllowOrigin)
	}
	w.WriteHeader(http.StatusOK)

	rc := http.NewResponseController(w)
	if h.opts.WriteTimeout > 0 {
		defer rc.SetWriteDeadline(time.Time{}) // clear it for a reused connection
	}
	f := NewFrames(h.opts.Log)
	f.Ping() // tells the client the stream is open before the first interval
	if !h.send(w, rc, f, r) {
		return
	}
	clk, every := h.opts.Clock, h.opts.Interval
	next := clk.Now().Add(every)
	for h.wait(r.Context(), next) {
		now := clk.Now()
		f.Reset()
		h.render(f, now)
		f.Ping()
		if !h.send(w, rc, f, r) {
			return
		}
		next = nextTick(next, clk.Now(), every)
	}
}

func (h *Handler) reject(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusServiceUnavailable)
	io.WriteString(w, "MaxConcurrentConnections reached: "+strconv.Itoa(h.opts.MaxConns))
}

// send writes the buffered frames and flushes them; false means the client is gone.
func (h *Handler) send(w http.ResponseWriter, rc *http.ResponseController, f *Frames, r *http.Request) bool {
	if h.opts.WriteTimeout > 0 {
		// A socket deadline: wall-clock time by nature. Not every writer supports it.
		if err := rc.SetWriteDeadline(time.Now().Add(h.opts.WriteTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
			h.drop(r, err)
			return false
		}
	}
	if _, err := w.Write(f.Bytes()); err != nil {
		h.drop(r, err)
		return false
	}
	if err := rc.Flush(); err != nil {
		h.drop(r, fmt.Errorf("flush: %w", err))
		return false
	}
	return true
}

// drop logs why a client is dropped, unless it left by itself. A write that passed its
// deadline is always logged: net/http cancels the request context when a write fails,
// so the context alone cannot tell a client that stopped reading from one that left.
func (h *Handler) drop(r *http.Request, err error) {
	if r.Context().Err() != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return // the client left; nothing worth logging
	}
	h.opts.Log.Warn("dashboard: dropping stream client", "remote", r.RemoteAddr, "path", r.URL.Path, "err", err)
}

// wait blocks until the clock reaches until (true) or ctx ends (false).
func (h *Handler) wait(ctx context.Context, until time.Time) bool {
	t := h.opts.Clock.NewTimer(until.Sub(h.opts.Clock.Now()))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// nextTick returns the first tick of the grid prev + k*every that lies after now, so
// ticks missed while a write blocked are skipped rather than queued.
func nextTick(prev, now time.Time, every time.Duration) time.Time {
	next := prev.Add(every)
	if next.After(now) {
		return next
	}
	return prev.Add((now.Sub(prev)/every + 1) * every)
}
