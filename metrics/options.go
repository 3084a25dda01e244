package metrics

import (
	"log/slog"
	"time"
)

// Option configures a Registry.
type Option func(*options)

type options struct {
	resolution  time.Duration
	buffer      int
	idleTimeout time.Duration
	logger      *slog.Logger
}

func defaultOptions() options {
	return options{
		resolution:  100 * time.Millisecond,
		buffer:      1 << 16,
		idleTimeout: time.Hour,
		logger:      slog.Default(),
	}
}

// WithResolution sets the width of the shared bucket stream (default 100ms). Every
// per-key bucket (health snapshot interval, rolling-stats bucket, rolling-percentile
// bucket) is rounded to a multiple of it, at least one.
func WithResolution(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.resolution = d
		}
	}
}

// WithBufferSize sets how many events the stream buffers between publishers and the
// consumer, rounded up to a power of two (default 65536 slots of 64 bytes, 4 MB allocated
// up front: about 50 ms of publishing at 1.2 million events/s while the consumer is
// descheduled). Events beyond it are dropped and counted in Registry.Dropped.
func WithBufferSize(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.buffer = n
		}
	}
}

// WithIdleTimeout sets how long a key must see no event (and have nothing in flight and
// empty windows) before the registry forgets it (default one hour; 0 never evicts). An
// evicted key comes back fresh on next use.
func WithIdleTimeout(d time.Duration) Option {
	return func(o *options) { o.idleTimeout = max(d, 0) }
}

// WithLogger sets the logger for dropped-event warnings (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}
