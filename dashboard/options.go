package dashboard

import (
	"log/slog"
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

// Option configures a stream handler.
type Option func(*options)

type options struct {
	interval     time.Duration
	maxConns     int
	writeTimeout time.Duration
	clk          clock.Clock
	log          *slog.Logger
	allowOrigin  string
}

func newOptions(interval time.Duration, opts []Option) options {
	o := options{
		interval:     interval,
		maxConns:     DefaultMaxConnections,
		writeTimeout: DefaultWriteTimeout,
		clk:          clock.System(),
		log:          slog.Default(),
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithInterval sets the time between two frame sets; values <= 0 keep the default.
func WithInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.interval = d
		}
	}
}

// WithMaxConnections sets how many clients may stream at once (default 5); values < 1
// keep the default. Each handler counts its own connections.
func WithMaxConnections(n int) Option {
	return func(o *options) {
		if n >= 1 {
			o.maxConns = n
		}
	}
}

// WithWriteTimeout sets how long one interval's write may block before the client is
// dropped (default 10 s); 0 disables the limit. It is a socket deadline, so it runs on
// wall-clock time, not on the handler's Clock, and it replaces any http.Server
// WriteTimeout for the stream.
func WithWriteTimeout(d time.Duration) Option {
	return func(o *options) { o.writeTimeout = max(d, 0) }
}

// WithClock sets the clock that paces the intervals and stamps currentTime (default
// clock.System()).
func WithClock(c clock.Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clk = c
		}
	}
}

// WithLogger sets the logger for dropped clients and write errors (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// WithAllowOrigin lets pages of another origin read the stream: it is sent as the
// Access-Control-Allow-Origin header ("https://ops.example.com", or "*" for any). Use
// it on every instance whose stream a dashboard page elsewhere sums (NewPageHandler).
// Default: none, so browsers let only pages of the stream's own origin read it.
func WithAllowOrigin(origin string) Option {
	return func(o *options) { o.allowOrigin = origin }
}
