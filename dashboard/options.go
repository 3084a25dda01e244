package dashboard

import (
	"log/slog"
	"time"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
)

// Option configures a stream handler.
type Option func(*options)

// options are the handler's settings, which the engine reads.
type options = sse.Settings

func newOptions(interval time.Duration, opts []Option) options {
	o := sse.NewSettings(interval)
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithInterval sets the time between two frame sets; values <= 0 keep the default.
func WithInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.Interval = d
		}
	}
}

// WithMaxConnections sets how many clients may stream at once (default 5); values < 1
// keep the default. Each handler counts its own connections.
func WithMaxConnections(n int) Option {
	return func(o *options) {
		if n >= 1 {
			o.MaxConns = n
		}
	}
}

// WithWriteTimeout sets how long one interval's write may block before the client is
// dropped (default 10 s); 0 disables the limit. It is a socket deadline on wall-clock
// time, and it replaces any http.Server WriteTimeout for the stream.
func WithWriteTimeout(d time.Duration) Option {
	return func(o *options) { o.WriteTimeout = max(d, 0) }
}

// WithLogger sets the logger for dropped clients and write errors (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.Log = l
		}
	}
}

// WithAllowOrigin lets pages of another origin read the stream: it is sent as the
// Access-Control-Allow-Origin header ("https://ops.example.com", or "*" for any). Use
// it on every instance whose stream a dashboard page elsewhere sums (NewPageHandler).
// Default: none, so browsers let only pages of the stream's own origin read it.
func WithAllowOrigin(origin string) Option {
	return func(o *options) { o.AllowOrigin = origin }
}
