package breaker

import (
	"log/slog"
	"sync"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Registry holds one breaker per command key. Each breaker listens to its key's health
// counts in a metrics.Registry. Create a fresh one with NewRegistry (tests, isolated
// subsystems) or use the process-wide Default. A Registry is safe for concurrent use.
//
// When the metrics registry evicts an idle key, the Registry drops that key's breaker and
// cancels its health subscription, so neither keeps the other alive; both come back fresh
// on next use. A caller that keeps a breaker across executions should keep it together
// with the key's CommandMetrics, or call Get per execution (one lock-free map lookup).
type Registry struct {
	props   *config.Store
	metrics *metrics.Registry
	clk     clock.Clock
	logger  *slog.Logger
	notify  notifier

	entries     sync.Map   // command key -> *entry: Get never locks for a known key
	mu          sync.Mutex // serialises creation, eviction and Close
	closed      bool
	cancelEvict func()
}

// entry is a registered breaker, the metrics it listens to and its subscription.
type entry struct {
	b      *breaker
	m      *metrics.CommandMetrics
	cancel func()
}

// NewRegistry returns a Registry whose breakers read their properties from props (for
// keys Get is given no properties), listen to health counts of m, read time from clk and
// log listeners that panic and keys without valid properties to logger (nil:
// slog.Default()).
func NewRegistry(props *config.Store, m *metrics.Registry, clk clock.Clock, logger *slog.Logger) *Registry {
	if logger == nil {
		logger = slog.Default()
	}
	r := &Registry{props: props, metrics: m, clk: clk, logger: logger}
	r.notify.logger = r.logger
	r.cancelEvict = m.OnCommandEvicted(r.evict)
	return r
}

// Default returns the process-wide Registry over config.Default(), metrics.Default() and
// the system clock, created on first use.
func Default() *Registry { return defaultRegistry() }

var defaultRegistry = sync.OnceValue(func() *Registry {
	return NewRegistry(config.Default(), metrics.Default(), clock.System(), nil)
})

// Get returns the breaker of a command key, creating it on first use with cp (nil: the
// key's properties from the registry's config store). Later calls return the same breaker
// and ignore cp. The breaker reads cp on every call, so property changes apply at once.
// Creating a key costs the same whatever the number of keys. If the key has no valid
// properties (an empty key) Get logs the error and returns a breaker that always allows,
// is never open and ignores every outcome.
func (r *Registry) Get(key string, cp *config.CommandProperties) CircuitBreaker {
	if e, ok := r.entries.Load(key); ok {
		return e.(*entry).b
	}
	if cp == nil {
		var err error
		if cp, err = r.props.Command(key, nil); err != nil {
			r.logger.Error("breaker: no properties for command: circuit breaker disabled", "key", key, "err", err)
			return noOp()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries.Load(key); ok {
		return e.(*entry).b
	}
	m := r.metrics.CommandFor(key, cp)
	e := &entry{b: newBreaker(key, cp, r.clk, m, r.notify.emit), m: m, cancel: func() {}}
	if !r.closed {
		e.cancel = m.OnHealthCounts(e.b.onHealth)
	}
	r.entries.Store(key, e)
	return e.b
}

// Lookup returns the breaker of a command key if the registry holds one, without
// creating it: for readers such as metrics exporters, which must not bring back a key
// that was just evicted. It takes no lock.
func (r *Registry) Lookup(key string) (CircuitBreaker, bool) {
	e, ok := r.entries.Load(key)
	if !ok {
		return nil, false
	}
	return e.(*entry).b, true
}

// OnStateChange registers f to receive every transition of every breaker of the
// registry, with its reason, in the order the transitions happened. f runs on a delivery
// goroutine of the registry, never under a breaker lock and never on the metrics roll; a
// slow f delays only later deliveries. A panic in f is logged. cancel removes f (a
// delivery already under way may still reach it once).
func (r *Registry) OnStateChange(f func(Transition)) (cancel func()) {
	return r.notify.subscribe(f)
}

// Close cancels every breaker's health subscription and the eviction subscription, for a
// Registry that is discarded while its metrics registry lives on. Breakers keep working
// as gates but no longer open on health counts. Close is idempotent.
func (r *Registry) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	r.cancelEvict()
	r.entries.Range(func(_, e any) bool {
		e.(*entry).cancel()
		return true
	})
}

// evict drops the breaker listening to metrics the metrics registry evicted (on its
// eviction goroutine); a breaker already made for fresh metrics of the key stays.
func (r *Registry) evict(m *metrics.CommandMetrics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.entries.Load(m.Key()); ok && e.(*entry).m == m {
		r.entries.Delete(m.Key())
		e.(*entry).cancel()
	}
}
