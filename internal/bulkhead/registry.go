package bulkhead

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

// PoolRegistry holds one Pool per thread-pool key, made on first use with the key's
// config.ThreadPoolProperties. Make a fresh one per test with NewPoolRegistry; Default is
// the process-wide one. It is safe for concurrent use.
type PoolRegistry struct {
	props  *config.Store
	clk    clock.Clock
	logger *slog.Logger
	pools  sync.Map // key -> *Pool: Get reads it without locking

	mu     sync.Mutex // serialises creation and Close
	closed atomic.Bool
}

// NewPoolRegistry returns an empty registry whose pools take their properties from props
// and their time from clk.
func NewPoolRegistry(props *config.Store, clk clock.Clock, opts ...Option) *PoolRegistry {
	r := &PoolRegistry{props: props, clk: clk, logger: slog.Default()}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Option configures NewPoolRegistry.
type Option func(*PoolRegistry)

// WithLogger sets the logger of the registry's pools, for tasks that panic (default
// slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(r *PoolRegistry) {
		if l != nil {
			r.logger = l
		}
	}
}

var defaultRegistry = sync.OnceValue(func() *PoolRegistry {
	return NewPoolRegistry(config.Default(), clock.System())
})

// Default returns the process-wide registry (over config.Default and clock.System), made
// on first use. Closing it is final.
func Default() *PoolRegistry { return defaultRegistry() }

// Get returns the pool of key, making it on the first call with the key's thread-pool
// properties (inCode: the values set in code; as in config.Store, the first creation
// wins). The fast path, a pool that exists, is a lock-free map lookup: no lock, no
// allocation; making a pool costs the same whatever the number of pools. A config error is
// returned wrapped; after Close, Get returns ErrClosed.
func (r *PoolRegistry) Get(key string, inCode config.ThreadPoolOverrides) (*Pool, error) {
	if r.closed.Load() {
		return nil, r.errClosed(key)
	}
	if p, ok := r.pools.Load(key); ok {
		return p.(*Pool), nil
	}
	props, err := r.props.ThreadPool(key, inCode)
	if err != nil {
		return nil, fmt.Errorf("isolation: thread pool %q: %w", key, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed.Load() {
		return nil, r.errClosed(key)
	}
	if p, ok := r.pools.Load(key); ok {
		return p.(*Pool), nil
	}
	p := newPool(key, settingsFrom(props), r.clk)
	p.logger = r.logger
	r.pools.Store(key, p)
	return p, nil
}

// Evict stops the pool of key and forgets it, so that the next Get makes a fresh one. The
// command package calls it when the key's thread-pool metrics are evicted for idleness.
// Like the first half of Pool.Close it does not wait: idle workers exit at once, a worker
// still running an abandoned task (a timed-out run that ignores its context) exits when
// the task ends. Unknown keys are ignored.
func (r *PoolRegistry) Evict(key string) {
	if p, ok := r.pools.LoadAndDelete(key); ok {
		p.(*Pool).shutdown()
	}
}

func (r *PoolRegistry) errClosed(key string) error {
	return fmt.Errorf("isolation: thread pool %q: registry %w", key, ErrClosed)
}

// Pools returns every pool the registry holds (not those evicted), sorted by key (closed
// ones included after Close).
func (r *PoolRegistry) Pools() []*Pool {
	var pools []*Pool
	r.pools.Range(func(_, p any) bool {
		pools = append(pools, p.(*Pool))
		return true
	})
	slices.SortFunc(pools, func(a, b *Pool) int { return cmp.Compare(a.key, b.key) })
	return pools
}

// Close closes every pool (all stop accepting at once, then Close waits for each, see
// Pool.Close) and makes later Gets fail with ErrClosed. It is idempotent.
func (r *PoolRegistry) Close() {
	r.mu.Lock()
	r.closed.Store(true)
	r.mu.Unlock()
	pools := r.Pools()
	for _, p := range pools {
		p.shutdown()
	}
	for _, p := range pools {
		p.done.Wait()
	}
}
