package metrics

import (
	"log/slog"
	"time"
)

// Option configures a Registry.
type Option func(*options)

type options struct {
	idleTimeout time.Duration
	logger      *slog.Logger
}

func defaultOptions() options {
	return options{idleTimeout: time.Hour, logger: slog.Default()}
}

// WithIdleTimeout sets how long a key must see no event (and have nothing in flight and
// empty windows) before the registry forgets it (default one hour; 0 never evicts). An
// evicted key comes back fresh on next use.
func WithIdleTimeout(d time.Duration) Option {
	return func(o *options) { o.idleTimeout = max(d, 0) }
}

// WithLogger sets the logger for listeners that panic (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}
