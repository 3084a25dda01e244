package metrics

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/observable"
)

// Registry owns the shared event stream and the metrics of every command, thread-pool and
// collapser key. It runs a fixed set of goroutines (the stream consumer and one RxGo stage
// at bucket granularity), however many keys it holds. Close stops them.
type Registry struct {
	props *config.Store
	clk   clock.Clock
	opts  options
	bus   *observable.Bus[event]

	mu         sync.Mutex
	commands   map[string]*CommandMetrics
	pools      map[string]*ThreadPoolMetrics
	collapsers map[string]*CollapserMetrics
	onEvict    map[uint64]func(string)
	nextID     uint64

	// roll goroutine only
	active    []*series
	nextSweep int64
	dropped   uint64
	droppedAt int64

	started    atomic.Bool
	progressMu sync.Mutex
	progressed *sync.Cond
	processed  int64 // end tick index up to which every bucket has been rolled
	closed     bool

	cancel    context.CancelFunc
	done      <-chan struct{}
	closeOnce sync.Once
}

// NewRegistry starts a registry reading per-key window sizes from props (nil: built-in
// defaults) and time from clk. It returns once the stream is subscribed and its first
// bucket timer armed, so no event published after it is lost.
func NewRegistry(props *config.Store, clk clock.Clock, opts ...Option) *Registry {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	r := &Registry{
		props: props, clk: clk, opts: o,
		bus:        observable.NewBus[event](o.buffer),
		commands:   map[string]*CommandMetrics{},
		pools:      map[string]*ThreadPoolMetrics{},
		collapsers: map[string]*CollapserMetrics{},
		onEvict:    map[uint64]func(string){},
	}
	r.progressed = sync.NewCond(&r.progressMu)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	buckets := observable.Buckets(r.bus.Subscribe, o.resolution, clk, r.newTick, r.add)
	r.done = buckets.ForEach(
		func(i any) { r.roll(i.(*tick)) },
		func(err error) { o.logger.Error("metrics: stream failed", "err", err) },
		func() {},
		rxgo.WithContext(ctx))
	for r.bus.Subscribers() == 0 {
		runtime.Gosched()
	}
	r.roundTrip()
	return r
}

var (
	defaultOnce     sync.Once
	defaultRegistry *Registry
)

// Default returns the process-wide registry over config.Default() and the system clock,
// started on first use and never closed.
func Default() *Registry {
	defaultOnce.Do(func() { defaultRegistry = NewRegistry(config.Default(), clock.System()) })
	return defaultRegistry
}

// Close stops the registry's goroutines. Publishing afterwards is a no-op; readers keep
// the last values. Close is idempotent.
func (r *Registry) Close() {
	r.closeOnce.Do(func() {
		r.cancel()
		<-r.done
		r.progressMu.Lock()
		r.closed = true
		r.progressed.Broadcast()
		r.progressMu.Unlock()
	})
}

// Dropped returns how many events were lost because the consumer fell a full buffer
// behind (also logged with slog.Warn, at most once a second). It stays 0 while the
// consumer keeps up. A Flush marker that finds the buffer full is resent and counted too.
func (r *Registry) Dropped() uint64 { return r.bus.Dropped() }

// Flush waits until every event published before the call has been folded in and every
// bucket that ended at or before the clock's time at the call has been rolled and its
// snapshots published, and the stream is waiting for its next boundary. Tests on a fake
// clock call it after publishing and after each Advance instead of sleeping; on the system
// clock it can wait up to the stream resolution.
func (r *Registry) Flush() {
	target := tickIndex(r.clk.Now(), r.opts.resolution)
	r.roundTrip()
	r.progressMu.Lock()
	for r.processed < target && !r.closed {
		r.progressed.Wait()
	}
	r.progressMu.Unlock()
	r.roundTrip()
}

// roundTrip sends a marker through the stream and waits until the consumer reached it (so
// every earlier event is folded into a tick), resending if the marker was dropped.
func (r *Registry) roundTrip() {
	m := &marker{ch: make(chan struct{})}
	for {
		r.bus.Publish(event{kind: evSync, marker: m})
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-m.ch:
			t.Stop()
			return
		case <-r.done:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// progress records that every bucket ending at or before end has been rolled.
func (r *Registry) progress(end int64) {
	r.progressMu.Lock()
	r.processed = end
	r.progressed.Broadcast()
	r.progressMu.Unlock()
}

// Command returns the metrics of a command key, creating them (fresh after an eviction)
// with the window sizes of props.Command(key, nil). Because the config store caches the
// first properties made for a key, resolve the key's properties with their values set in
// code before calling Command, or use CommandFor.
func (r *Registry) Command(key string) *CommandMetrics {
	if m := r.lookupCommand(key); m != nil {
		return m
	}
	var p *config.CommandProperties
	if r.props != nil {
		p, _ = r.props.Command(key, nil) // only an empty key fails: default windows then
	}
	return r.CommandFor(key, p)
}

// CommandFor is Command with the key's properties given; p nil means built-in defaults.
// Window sizes are read once, when the key's metrics are created.
func (r *Registry) CommandFor(key string, p *config.CommandProperties) *CommandMetrics {
	if m := r.lookupCommand(key); m != nil {
		return m
	}
	w := defaultWindows
	if p != nil {
		w = windows{
			statsWindow: p.RollingStatsWindow.Get(), statsBuckets: p.RollingStatsBuckets.Get(),
			pctWindow: p.RollingPercentileWindow.Get(), pctBuckets: p.RollingPercentileBuckets.Get(),
			health: p.HealthSnapshotInterval.Get(), pctEnabled: p.RollingPercentileEnabled,
		}
	}
	m := r.newCommand(key, w)
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.commands[key]; old != nil {
		return old
	}
	r.commands[key] = m
	return m
}

func (r *Registry) lookupCommand(key string) *CommandMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.commands[key]
}

// ThreadPool returns the metrics of a thread-pool key, creating them with the window sizes
// of props.ThreadPool(key, nil) (see Command about the config cache, and ThreadPoolFor).
func (r *Registry) ThreadPool(key string) *ThreadPoolMetrics {
	r.mu.Lock()
	m := r.pools[key]
	r.mu.Unlock()
	if m != nil {
		return m
	}
	var p *config.ThreadPoolProperties
	if r.props != nil {
		p, _ = r.props.ThreadPool(key, nil)
	}
	return r.ThreadPoolFor(key, p)
}

// ThreadPoolFor is ThreadPool with the pool's properties given; p nil means defaults.
func (r *Registry) ThreadPoolFor(key string, p *config.ThreadPoolProperties) *ThreadPoolMetrics {
	w := defaultWindows
	if p != nil {
		w.statsWindow, w.statsBuckets = p.RollingStatsWindow.Get(), p.RollingStatsBuckets.Get()
	}
	res := r.opts.resolution
	m := &ThreadPoolMetrics{s: newSeries(r, key, NumThreadPoolEventTypes, w.statsBuckets,
		ticks(w.statsWindow/time.Duration(w.statsBuckets), res))}
	m.s.owner = m
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.pools[key]; old != nil {
		return old
	}
	r.pools[key] = m
	return m
}

// Collapser returns the metrics of a collapser key, creating them with the window sizes
// of props.Collapser(key, nil) (see Command about the config cache, and CollapserFor).
func (r *Registry) Collapser(key string) *CollapserMetrics {
	r.mu.Lock()
	m := r.collapsers[key]
	r.mu.Unlock()
	if m != nil {
		return m
	}
	var p *config.CollapserProperties
	if r.props != nil {
		p, _ = r.props.Collapser(key, nil)
	}
	return r.CollapserFor(key, p)
}

// CollapserFor is Collapser with the collapser's properties given; p nil means defaults.
func (r *Registry) CollapserFor(key string, p *config.CollapserProperties) *CollapserMetrics {
	w := defaultWindows
	if p != nil {
		w = windows{
			statsWindow: p.RollingStatsWindow.Get(), statsBuckets: p.RollingStatsBuckets.Get(),
			pctWindow: p.RollingPercentileWindow.Get(), pctBuckets: p.RollingPercentileBuckets.Get(),
			pctEnabled: p.RollingPercentileEnabled,
		}
	}
	res := r.opts.resolution
	s := newSeries(r, key, NumCollapserEventTypes, w.statsBuckets,
		ticks(w.statsWindow/time.Duration(w.statsBuckets), res))
	s.dist = newDistWindow(w.pctBuckets, ticks(w.pctWindow/time.Duration(w.pctBuckets), res))
	m := &CollapserMetrics{s: s, percentileEnabled: w.pctEnabled}
	s.owner = m
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.collapsers[key]; old != nil {
		return old
	}
	r.collapsers[key] = m
	return m
}

// Commands returns the metrics of every command key held, sorted by key (dashboards).
func (r *Registry) Commands() []*CommandMetrics {
	r.mu.Lock()
	out := make([]*CommandMetrics, 0, len(r.commands))
	for _, m := range r.commands {
		out = append(out, m)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *CommandMetrics) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// ThreadPools returns the metrics of every thread-pool key held, sorted by key.
func (r *Registry) ThreadPools() []*ThreadPoolMetrics {
	r.mu.Lock()
	out := make([]*ThreadPoolMetrics, 0, len(r.pools))
	for _, m := range r.pools {
		out = append(out, m)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *ThreadPoolMetrics) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// Collapsers returns the metrics of every collapser key held, sorted by key.
func (r *Registry) Collapsers() []*CollapserMetrics {
	r.mu.Lock()
	out := make([]*CollapserMetrics, 0, len(r.collapsers))
	for _, m := range r.collapsers {
		out = append(out, m)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b *CollapserMetrics) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// windows are the per-key window sizes, read when a key's metrics are created.
type windows struct {
	statsWindow  time.Duration
	statsBuckets int
	pctWindow    time.Duration
	pctBuckets   int
	health       time.Duration
	pctEnabled   *config.Property[bool]
}

// defaultWindows are Hystrix's built-in defaults, for keys created without properties.
var defaultWindows = windows{
	statsWindow: 10 * time.Second, statsBuckets: 10,
	pctWindow: time.Minute, pctBuckets: 6,
	health:     500 * time.Millisecond,
	pctEnabled: config.Fixed("metrics.rollingPercentile.enabled", true),
}

func (r *Registry) newCommand(key string, w windows) *CommandMetrics {
	res := r.opts.resolution
	s := newSeries(r, key, NumEventTypes, w.statsBuckets,
		ticks(w.statsWindow/time.Duration(w.statsBuckets), res))
	s.dist = newDistWindow(w.pctBuckets, ticks(w.pctWindow/time.Duration(w.pctBuckets), res))
	m := &CommandMetrics{s: s, percentileEnabled: w.pctEnabled}
	s.owner = m
	m.healthSnap.Store(zeroHealth)
	hPer := ticks(w.health, res)
	m.hw = newHealthWindow(int(max(ticks(w.statsWindow, res)/hPer, 1)), hPer)
	s.health = m
	return m
}
