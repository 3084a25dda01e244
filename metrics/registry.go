package metrics

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

// Registry holds the metrics of every command, thread-pool and collapser key and rolls
// their windows: at every bucket boundary it cuts the closed bucket of each active key and
// pushes it into the key's windows. It owns no goroutine: the roll runs in the callback of
// one clock timer, armed for the next boundary due among the active keys (or the next
// eviction sweep), whatever the number of keys. Close stops it.
type Registry struct {
	props *config.Store
	clk   clock.Clock
	opts  options

	commands, pools, collapsers sync.Map // key -> *CommandMetrics, ...

	mu      sync.Mutex // held while rolling
	groups  []*group   // by width, ascending
	scratch []bin

	schedMu    sync.Mutex // guards what follows
	pending    []*series  // activated by callers since the last roll
	timer      clock.Timer
	due        int64 // Unix ns the timer fires at
	nextSweep  int64
	sweepDone  chan struct{} // closed when the running sweep ends; nil when none runs
	sweepAgain int64         // Unix ns of a sweep due while one ran; 0 when none
	closed     atomic.Bool

	evictMu      sync.Mutex
	onEvict      map[uint64]func(*CommandMetrics)
	onPoolEvict  map[uint64]func(*ThreadPoolMetrics)
	nextListener uint64

	feed feeds // the subscriptions of Completions, HealthSnapshots and CountSnapshots
}

// group is the set of active keys that have a window of one width: they all close a
// bucket at every multiple of the width (buckets are aligned to the clock).
type group struct {
	width time.Duration
	next  int64 // Unix ns of the next boundary to roll
	keys  []*series
}

// NewRegistry returns a registry reading per-key window sizes from props (nil: built-in
// defaults) and time from clk.
func NewRegistry(props *config.Store, clk clock.Clock, opts ...Option) *Registry {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	r := &Registry{
		props: props, clk: clk, opts: o,
		onEvict:     map[uint64]func(*CommandMetrics){},
		onPoolEvict: map[uint64]func(*ThreadPoolMetrics){},
	}
	now := clk.Now().UnixNano()
	r.schedMu.Lock()
	r.nextSweep = now + int64(r.sweepInterval())
	r.arm(r.nextDue(), now)
	r.schedMu.Unlock()
	return r
}

var defaultRegistry = sync.OnceValue(func() *Registry {
	return NewRegistry(config.Default(), clock.System())
})

// Default returns the process-wide registry over config.Default() and the system clock,
// made on first use and never closed.
func Default() *Registry { return defaultRegistry() }

// Close stops rolling: windows keep their last values, recording still counts into the
// keys' counters but nothing reaches the windows any more. It ends every subscription to
// the registry's feeds and waits for them, and for a running eviction sweep. Close is
// idempotent.
func (r *Registry) Close() {
	r.feed.close()
	r.mu.Lock()
	r.schedMu.Lock()
	r.closed.Store(true)
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	done := r.sweepDone
	r.schedMu.Unlock()
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// Flush rolls, on the calling goroutine, every bucket that ended at or before the clock's
// time, and waits for a running eviction sweep. With clock.Fake the timer already rolls
// inside Advance; Flush makes tests independent of that. It does not close the bucket in
// progress: what was recorded since its start shows once the clock passes its end.
func (r *Registry) Flush() {
	r.mu.Lock()
	if !r.closed.Load() {
		r.roll()
	}
	r.mu.Unlock()
	r.schedMu.Lock()
	done := r.sweepDone
	r.schedMu.Unlock()
	if done != nil {
		<-done
	}
}

// tick is the timer callback.
func (r *Registry) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed.Load() {
		r.roll()
	}
}

// roll closes every bucket that ended by now, starts an eviction sweep when one is due,
// and re-arms the timer (r.mu held).
func (r *Registry) roll() {
	now := r.clk.Now().UnixNano()
	r.schedMu.Lock()
	pending := r.pending
	r.pending = nil
	r.schedMu.Unlock()
	for _, s := range pending {
		r.join(s)
	}
	for _, g := range r.groups {
		if g.next > now {
			continue
		}
		missed := (now - g.next) / int64(g.width) // boundaries passed before the last one
		at := g.next + missed*int64(g.width)
		g.next = at + int64(g.width)
		k := int(min(missed, 1<<20)) + 1 // more than any ring holds: all empty
		for i := 0; i < len(g.keys); {
			s := g.keys[i]
			s.roll(g.width, k, at, &r.scratch)
			if !s.quiet() || !r.deactivate(s) {
				i++ // else another key moved into slot i
			}
		}
	}
	r.groups = slices.DeleteFunc(r.groups, func(g *group) bool { return len(g.keys) == 0 })
	r.schedMu.Lock()
	defer r.schedMu.Unlock()
	if r.opts.idleTimeout > 0 && now >= r.nextSweep {
		r.nextSweep = now + int64(r.sweepInterval())
		r.startSweep(now)
	}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.arm(r.nextDue(), now)
}

// nextDue returns when the timer must fire next: the first boundary of a group or of a
// pending key, or the next sweep (schedMu held; r.mu held, or no roll can run yet).
func (r *Registry) nextDue() int64 {
	due := int64(1<<63 - 1)
	if r.opts.idleTimeout > 0 {
		due = r.nextSweep
	}
	for _, g := range r.groups {
		due = min(due, g.next)
	}
	for _, s := range r.pending {
		due = min(due, s.nextBoundary(s.activated))
	}
	return due
}

// arm makes the timer fire at due unless it fires sooner already (schedMu held). A
// timer that cannot be stopped any more is rolling or about to: that roll re-arms.
func (r *Registry) arm(due, now int64) {
	if due == 1<<63-1 || r.closed.Load() || (r.timer != nil && r.due <= due) {
		return
	}
	if r.timer != nil && !r.timer.Stop() {
		return
	}
	r.timer = r.clk.AfterFunc(time.Duration(due-now), r.tick)
	r.due = due
}

// activate hands a key that became active to the roller (a caller, after recording).
func (r *Registry) activate(s *series) {
	if s.evicted.Load() {
		r.revive(s)
	}
	now := r.clk.Now().UnixNano()
	r.schedMu.Lock()
	s.activated = now
	r.pending = append(r.pending, s)
	r.arm(s.nextBoundary(now), now)
	r.schedMu.Unlock()
}

// join adds s to the group of each of its window widths it is not in yet; a new group
// starts at the first boundary after s became active (r.mu held).
func (r *Registry) join(s *series) {
	for i, w := range s.widths {
		if s.members[i].g != nil {
			continue
		}
		j, found := slices.BinarySearchFunc(r.groups, w, func(g *group, w time.Duration) int {
			return cmp.Compare(g.width, w)
		})
		if !found {
			r.groups = slices.Insert(r.groups, j, &group{width: w, next: boundaryAfter(s.activated, w)})
		}
		g := r.groups[j]
		s.members[i] = membership{g: g, at: len(g.keys)}
		g.keys = append(g.keys, s)
	}
}

// deactivate stops visiting a quiet key unless a caller recorded meanwhile: the caller
// either sees the key inactive (and activates it again) or its record is seen here.
func (r *Registry) deactivate(s *series) bool {
	s.active.Store(false)
	if !s.quiet() {
		s.active.CompareAndSwap(false, true)
		return false
	}
	for i := range s.widths {
		m := s.members[i]
		g := m.g
		last := len(g.keys) - 1
		moved := g.keys[last]
		g.keys[m.at] = moved
		for j := range moved.widths {
			if moved.members[j].g == g {
				moved.members[j].at = m.at
			}
		}
		g.keys[last] = nil // nothing of a quiet key stays reachable from the group
		g.keys = g.keys[:last]
		s.members[i] = membership{}
	}
	return true
}

// Command returns the metrics of a command key, creating them (fresh after an eviction)
// with the window sizes of the key's properties (config.Store.PeekCommand: a reader
// asking before the key's definition does not fix its properties). A key whose metrics
// a reader made before its definition keeps the window sizes of its sources, without
// those set in code; CommandFor makes them with the definition's.
func (r *Registry) Command(key string) *CommandMetrics {
	if m, ok := r.commands.Load(key); ok {
		return m.(*CommandMetrics)
	}
	var p *config.CommandProperties
	if r.props != nil {
		p, _ = r.props.PeekCommand(key) // only an empty key fails: default windows then
	}
	return r.CommandFor(key, p)
}

// CommandFor is Command with the key's properties given; p nil means built-in defaults.
// Window sizes are read once, when the key's metrics are created.
func (r *Registry) CommandFor(key string, p *config.CommandProperties) *CommandMetrics {
	if m, ok := r.commands.Load(key); ok {
		return m.(*CommandMetrics)
	}
	m, _ := r.commands.LoadOrStore(key, r.newCommand(key, p))
	return m.(*CommandMetrics)
}

// ThreadPool returns the metrics of a thread-pool key, creating them with the window sizes
// of the pool's properties (config.Store.PeekThreadPool; see Command, and ThreadPoolFor).
func (r *Registry) ThreadPool(key string) *ThreadPoolMetrics {
	if m, ok := r.pools.Load(key); ok {
		return m.(*ThreadPoolMetrics)
	}
	var p *config.ThreadPoolProperties
	if r.props != nil {
		p, _ = r.props.PeekThreadPool(key)
	}
	return r.ThreadPoolFor(key, p)
}

// ThreadPoolFor is ThreadPool with the pool's properties given; p nil means defaults.
func (r *Registry) ThreadPoolFor(key string, p *config.ThreadPoolProperties) *ThreadPoolMetrics {
	if m, ok := r.pools.Load(key); ok {
		return m.(*ThreadPoolMetrics)
	}
	m, _ := r.pools.LoadOrStore(key, r.newThreadPool(key, p))
	return m.(*ThreadPoolMetrics)
}

// Collapser returns the metrics of a collapser key, creating them with the window sizes
// of the collapser's properties (config.Store.PeekCollapser; see Command, and
// CollapserFor).
func (r *Registry) Collapser(key string) *CollapserMetrics {
	if m, ok := r.collapsers.Load(key); ok {
		return m.(*CollapserMetrics)
	}
	var p *config.CollapserProperties
	if r.props != nil {
		p, _ = r.props.PeekCollapser(key)
	}
	return r.CollapserFor(key, p)
}

// CollapserFor is Collapser with the collapser's properties given; p nil means defaults.
func (r *Registry) CollapserFor(key string, p *config.CollapserProperties) *CollapserMetrics {
	if m, ok := r.collapsers.Load(key); ok {
		return m.(*CollapserMetrics)
	}
	m, _ := r.collapsers.LoadOrStore(key, r.newCollapser(key, p))
	return m.(*CollapserMetrics)
}

// Commands returns the metrics of every command key held, sorted by key (dashboards).
func (r *Registry) Commands() []*CommandMetrics {
	return sortedValues[*CommandMetrics](&r.commands, (*CommandMetrics).Key)
}

// ThreadPools returns the metrics of every thread-pool key held, sorted by key.
func (r *Registry) ThreadPools() []*ThreadPoolMetrics {
	return sortedValues[*ThreadPoolMetrics](&r.pools, (*ThreadPoolMetrics).Key)
}

// Collapsers returns the metrics of every collapser key held, sorted by key.
func (r *Registry) Collapsers() []*CollapserMetrics {
	return sortedValues[*CollapserMetrics](&r.collapsers, (*CollapserMetrics).Key)
}

func sortedValues[M any](m *sync.Map, key func(M) string) []M {
	var out []M
	m.Range(func(_, v any) bool {
		out = append(out, v.(M))
		return true
	})
	slices.SortFunc(out, func(a, b M) int { return strings.Compare(key(a), key(b)) })
	return out
}
