package command

import (
	"log/slog"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Runtime bundles what commands share: the clock, the configuration store, the metrics,
// circuit-breaker, thread-pool and hook registries, and the per-key state resolved from
// them. Default is the process-wide runtime; NewRuntime makes a fresh, isolated one (one
// per test). A Runtime is safe for concurrent use.
type Runtime struct {
	clk      clock.Clock
	base     time.Time // executions keep their times as offsets from it
	config   *config.Store
	metrics  *metrics.Registry
	breakers *breaker.Registry
	pools    *bulkhead.PoolRegistry
	hooks    *hooks.Registry
	logger   *slog.Logger
	mopts    []metrics.Option
	closers  []func()

	mu     sync.Mutex // serialises resolving and forgetting keys
	keys   sync.Map   // command key -> *keyState: one lock-free lookup per command
	chains sync.Map   // [maxStages]stage -> *link: the chains the keys' properties ask for (chainOf)
	shared sharedState

	// detached counts the goroutines executions started that may outlive the caller's
	// outcome (a hedge's attempts) until they have given back and counted everything.
	detached atomic.Int64

	newLimiter limiterFactory // WithRateLimiters's
	random     func() uint64  // fault injection and throttling picks; nil: math/rand/v2 (tests set it)

	layout []stage // the stages keys are assembled from (chain.go's layout)
}

// Option configures NewRuntime.
type Option func(*Runtime)

// WithClock sets the clock (default clock.System()); use a clock.Fake in tests.
func WithClock(c clock.Clock) Option { return func(r *Runtime) { r.clk = c } }

// WithConfig sets the configuration store. By default a runtime has a store of its own
// (its keys' properties are its own) over the sources of config.Default, now and later
// (config.NewDefaultStore): values set on config.DefaultSource(), HYSTRIX_* environment
// variables and every source added with config.Default().AddSource (a file, etcd) reach
// every runtime that was not given a store, at the same moment. Give one
// (config.NewStore(...)) to keep a runtime apart from them, as a test that sets
// properties should.
func WithConfig(s *config.Store) Option { return func(r *Runtime) { r.config = s } }

// WithHooks sets the hook registry (default: a fresh hooks.NewRegistry()).
func WithHooks(h *hooks.Registry) Option { return func(r *Runtime) { r.hooks = h } }

// WithLogger sets the logger for everything the runtime and the registries it makes
// report: invalid settings, panics in hooks, notifiers, listeners and pool tasks, refused
// property values of a configuration store it makes (default slog.Default()). A store
// given with WithConfig keeps its own (config.Store.SetLogger); the dashboard handlers and
// request contexts take theirs where they are made.
func WithLogger(l *slog.Logger) Option { return func(r *Runtime) { r.logger = l } }

// WithMetricsOptions passes options to the runtime's metrics registry (idle eviction,
// logger).
func WithMetricsOptions(opts ...metrics.Option) Option {
	return func(r *Runtime) { r.mopts = append(r.mopts, opts...) }
}

// NewRuntime returns a runtime with fresh registries, except those given as options; its
// configuration store reads the default sources unless WithConfig gives another (see
// WithConfig). Close it when done: it stops the metrics roll and the thread pools it
// created, and the store it made.
func NewRuntime(opts ...Option) *Runtime {
	r := &Runtime{layout: layout[:]}
	for _, o := range opts {
		o(r)
	}
	if r.clk == nil {
		r.clk = clock.System()
	}
	if r.logger == nil {
		r.logger = slog.Default()
	}
	r.base = r.clk.Now()
	var closeConfig func()
	if r.config == nil {
		r.config = config.NewDefaultStore()
		r.config.SetLogger(r.logger)
		closeConfig = r.config.Close
	}
	if r.hooks == nil {
		r.hooks = hooks.NewRegistry()
	}
	r.metrics = metrics.NewRegistry(r.config, r.clk, append([]metrics.Option{metrics.WithLogger(r.logger)}, r.mopts...)...)
	r.breakers = breaker.NewRegistry(r.config, r.metrics, r.clk, r.logger)
	r.pools = bulkhead.NewPoolRegistry(r.config, r.clk, bulkhead.WithLogger(r.logger))
	forget := r.metrics.OnCommandEvicted(r.forget)
	forgetPool := r.metrics.OnThreadPoolEvicted(r.forgetPool)
	r.closers = []func(){forget, forgetPool, r.breakers.Close, r.pools.Close, r.metrics.Close, r.shared.close}
	if closeConfig != nil {
		r.closers = append(r.closers, closeConfig)
	}
	return r
}

var defaultRuntime = sync.OnceValue(func() *Runtime {
	clk := clock.System()
	r := &Runtime{
		clk:      clk,
		base:     clk.Now(),
		config:   config.Default(),
		metrics:  metrics.Default(),
		breakers: breaker.Default(),
		pools:    bulkhead.Default(),
		hooks:    hooks.Default(),
		logger:   slog.Default(),
		layout:   layout[:],
	}
	r.metrics.OnCommandEvicted(r.forget)
	r.metrics.OnThreadPoolEvicted(r.forgetPool)
	return r
})

// Default returns the process-wide runtime built on the default registries
// (config.Default, metrics.Default, breaker.Default, hooks.Default) and the system clock.
func Default() *Runtime { return defaultRuntime() }

// Close stops what NewRuntime started (thread pools, the metrics roll). Commands must
// not run on a closed runtime. Closing Default does nothing.
func (r *Runtime) Close() {
	for _, c := range r.closers {
		c()
	}
	r.closers = nil
}

// Clock returns the runtime's clock.
func (r *Runtime) Clock() clock.Clock { return r.clk }

// Config returns the runtime's configuration store.
func (r *Runtime) Config() *config.Store { return r.config }

// Metrics returns the runtime's metrics registry. Counts move when a bucket closes: right
// after executions, and after Flush, they read 0 until the clock passes the end of the
// bucket in progress (hystrixtest.Kit.AdvanceUntilQuiet does both in a test).
func (r *Runtime) Metrics() *metrics.Registry { return r.metrics }

// Breakers returns the runtime's circuit-breaker registry.
func (r *Runtime) Breakers() *breaker.Registry { return r.breakers }

// Hooks returns the runtime's hook registry.
func (r *Runtime) Hooks() *hooks.Registry { return r.hooks }

// CommandKeys returns the group and thread-pool keys that commands with commandKey run
// under, or empty strings for a key that has not run in this runtime. Its signature fits
// dashboard.Registries.CommandKeys.
func (r *Runtime) CommandKeys(commandKey string) (group, threadPool string) {
	if ks := r.lookup(commandKey); ks != nil {
		return ks.info.GroupKey, ks.info.ThreadPoolKey
	}
	return "", ""
}

// Permits returns the permits commands of commandKey hold now: of the execution semaphore
// (SEMAPHORE isolation, held while run runs) and of the fallback semaphore (held while the
// fallback runs); zero for a key that has not run in this runtime. Both return to zero
// once the key's executions are over, whatever their outcome: a soak test or a health
// check can tell a leak from load.
func (r *Runtime) Permits(commandKey string) (execution, fallback int) {
	ks := r.lookup(commandKey)
	if ks == nil || ks.fallbackSem == nil { // an invalid key holds no semaphores
		return 0, 0
	}
	return ks.execPermits(), ks.fallbackSem.InUse()
}

// state returns the per-key state of s.CommandKey, resolving it on first use: the first
// Setter of a key wins, as in Hystrix, and a later one that differs is logged once.
func (r *Runtime) state(s *Setter, stream bool) *keyState {
	ks := r.lookup(s.CommandKey)
	if ks == nil {
		return r.resolve(s, stream, nil)
	}
	if ks.invalid != nil && !sameSetter(ks.invalid, s) {
		return r.resolve(s, stream, ks) // a different Setter may repair an invalid key
	}
	ks.compare(s)
	return ks
}

// lookup returns the state of key if it was resolved already.
func (r *Runtime) lookup(key string) *keyState {
	if ks, ok := r.keys.Load(key); ok {
		return ks.(*keyState)
	}
	return nil
}

// resolve makes the state of s.CommandKey unless another goroutine did; invalid is the
// key's invalid state that s may replace (nil: none).
func (r *Runtime) resolve(s *Setter, stream bool, invalid *keyState) *keyState {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ks := r.lookup(s.CommandKey); ks != nil && ks != invalid {
		return ks
	}
	if invalid != nil {
		r.config.ForgetCommand(s.CommandKey) // resolve the properties from s, not from the invalid Setter
	}
	ks := newKeyState(r, s, stream)
	if invalid != nil && ks.err != nil {
		return invalid // still invalid: keep the first error, reported once
	}
	r.keys.Store(s.CommandKey, ks)
	return ks
}

// compare logs, once per key, a Setter that differs from the one that decided the key.
// The properties compare with the values the config store keeps for the key (nothing of
// the first Setter is kept), as written: a Setter with the same values costs a few
// lookups and no allocation; one written differently ("300" vs "300ms") is parsed and
// logged only if a value really differs.
func (ks *keyState) compare(s *Setter) {
	if ks.differs.Load() || ks.props == nil {
		return
	}
	if s.GroupKey != ks.info.GroupKey || s.ThreadPoolKey != ks.poolKey ||
		!sameMap(ks.poolProps, s.ThreadPoolProperties) {
		ks.logDiffers(s)
		return
	}
	id := mapID(s.Properties)
	if id == ks.sameProps.Load() { // the map that compared equal last time: a Setter kept in a variable
		return
	}
	var implied []config.Entry[config.CommandProperties]
	if ks.stream {
		implied = streamDefaults
	}
	if ks.props.SameInCode(s.Properties, implied...) || !ks.logDiffers(s) {
		ks.sameProps.Store(id) // the same values (perhaps written differently)
	}
}

// mapID is the identity of m's entries, 0 for an empty map, as reflect.Value.Pointer
// gives it: an identity that keeps nothing alive (a map later made at the same address
// with other values would pass as the same Setter, which costs at most a missed warning).
func mapID[M ~map[string]string](m M) uintptr {
	if len(m) == 0 {
		return 0
	}
	return reflect.ValueOf(m).Pointer()
}

// sameMap reports whether a and b hold the same entries, one map at the cost of a
// pointer compare.
func sameMap[M ~map[string]string](a, b M) bool {
	return len(a) == len(b) && (mapID(a) == mapID(b) || maps.Equal(a, b))
}

// logDiffers logs, once per key, how s differs from the key's first Setter; it reports
// whether s differs at all once its values are parsed ("300" and "300ms" are the same).
func (ks *keyState) logDiffers(s *Setter) bool {
	diffs := ks.redefinition(s, ks.stream)
	if len(diffs) == 0 {
		return false
	}
	if ks.differs.CompareAndSwap(false, true) {
		ks.rt.logger.Warn("command: a later Setter differs from the first one of its key, which wins",
			"key", s.CommandKey, "differences", diffs)
	}
	return true
}

func sameSetter(a, b *Setter) bool {
	return a.GroupKey == b.GroupKey && a.ThreadPoolKey == b.ThreadPoolKey &&
		sameMap(a.Properties, b.Properties) && sameMap(a.ThreadPoolProperties, b.ThreadPoolProperties)
}

// dropInvalid forgets the state of a key whose Setter was invalid, and the properties it
// made, if it is still held.
func (r *Runtime) dropInvalid(ks *keyState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.keys.CompareAndDelete(ks.info.CommandKey, ks) {
		r.config.ForgetCommand(ks.info.CommandKey)
	}
}

// forget drops the state of a key whose metrics were evicted for idleness, and its
// properties, so the next command of the key resolves fresh state with its own Setter
// (the breaker registry forgets the key too). State already resolved afresh for the key
// (with other metrics) stays.
func (r *Runtime) forget(m *metrics.CommandMetrics) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ks := r.lookup(m.Key()); ks != nil && ks.metrics == m {
		r.keys.Delete(m.Key())
		r.config.ForgetCommand(m.Key())
		ks.forgetStages()
		ks.forgotten.Store(true)
	}
}

// forgetPool closes and drops the goroutine pool of a thread-pool key whose metrics were
// evicted for idleness, and its properties; a command that runs on the key again gets a
// fresh pool.
func (r *Runtime) forgetPool(m *metrics.ThreadPoolMetrics) {
	r.pools.Evict(m.Key())
	r.config.ForgetThreadPool(m.Key())
}
