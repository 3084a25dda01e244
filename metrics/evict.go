package metrics

import (
	"sync"
	"time"
)

// OnCommandEvicted registers f to learn of every command whose metrics the registry
// evicted for idleness (the breaker and command registries drop what they keep for the
// key, so everything comes back fresh together). f runs on the eviction goroutine, one
// call at a time, never on the roll; a panic in f is logged. f must return: Close and
// Flush wait for a running sweep. cancel removes f.
func (r *Registry) OnCommandEvicted(f func(*CommandMetrics)) (cancel func()) {
	return listen(r, r.onEvict, f)
}

// OnThreadPoolEvicted registers f to learn of every thread pool whose metrics the registry
// evicted for idleness (the command package closes and forgets the pool), as
// OnCommandEvicted.
func (r *Registry) OnThreadPoolEvicted(f func(*ThreadPoolMetrics)) (cancel func()) {
	return listen(r, r.onPoolEvict, f)
}

func listen[M any](r *Registry, to map[uint64]func(M), f func(M)) (cancel func()) {
	r.evictMu.Lock()
	r.nextListener++
	id := r.nextListener
	to[id] = f
	r.evictMu.Unlock()
	return func() {
		r.evictMu.Lock()
		delete(to, id)
		r.evictMu.Unlock()
	}
}

// sweepInterval is how often idle keys are looked for: an eighth of the idle timeout.
func (r *Registry) sweepInterval() time.Duration {
	return max(r.opts.idleTimeout/8, time.Millisecond)
}

// startSweep starts an eviction sweep on a goroutine of its own (schedMu held), so that
// evicting many keys never delays the roll of live ones. If one runs already, it sweeps
// again for now when it is done.
func (r *Registry) startSweep(now int64) {
	if r.sweepDone != nil {
		r.sweepAgain = now
		return
	}
	done := make(chan struct{})
	r.sweepDone = done
	go func() {
		for {
			r.sweep(now)
			r.schedMu.Lock()
			if now = r.sweepAgain; now == 0 {
				r.sweepDone = nil
				r.schedMu.Unlock()
				close(done)
				return
			}
			r.sweepAgain = 0
			r.schedMu.Unlock()
		}
	}()
}

// sweep forgets the keys that saw no event for the idle timeout, have nothing in flight
// and nothing left in their windows, then tells the listeners.
func (r *Registry) sweep(now int64) {
	idle := int64(r.opts.idleTimeout)
	var commands []*CommandMetrics
	var pools []*ThreadPoolMetrics
	r.commands.Range(func(_, v any) bool {
		if m := v.(*CommandMetrics); r.evict(m.s, now, idle) {
			commands = append(commands, m)
		}
		return true
	})
	r.pools.Range(func(_, v any) bool {
		if m := v.(*ThreadPoolMetrics); r.evict(m.s, now, idle) {
			pools = append(pools, m)
		}
		return true
	})
	r.collapsers.Range(func(_, v any) bool {
		r.evict(v.(*CollapserMetrics).s, now, idle)
		return true
	})
	notify(r, r.onEvict, commands)
	notify(r, r.onPoolEvict, pools)
}

// evict drops s from the registry if it is idle. A caller that records meanwhile either
// sees it evicted (and revives it) or is seen here (and the eviction is undone).
func (r *Registry) evict(s *series, now, idle int64) bool {
	if s.active.Load() || s.current.Load() != 0 || now-s.lastEvent.Load() < idle {
		return false
	}
	s.evicted.Store(true)
	keys := r.keysOf(s)
	keys.CompareAndDelete(s.key, s.owner)
	if s.active.Load() {
		s.evicted.Store(false)
		keys.LoadOrStore(s.key, s.owner)
		return false
	}
	return true
}

// revive lists an evicted series again when a caller that kept it records, unless a fresh
// one already took its key (then it lives on unlisted until dropped).
func (r *Registry) revive(s *series) {
	if s.evicted.Swap(false) {
		r.keysOf(s).LoadOrStore(s.key, s.owner)
	}
}

// keysOf returns the map that lists s.
func (r *Registry) keysOf(s *series) *sync.Map {
	switch s.owner.(type) {
	case *CommandMetrics:
		return &r.commands
	case *ThreadPoolMetrics:
		return &r.pools
	}
	return &r.collapsers
}

// notify calls every listener for every evicted key; a panicking listener is logged.
func notify[M any](r *Registry, of map[uint64]func(M), evicted []M) {
	if len(evicted) == 0 {
		return
	}
	r.evictMu.Lock()
	fs := make([]func(M), 0, len(of))
	for _, f := range of {
		fs = append(fs, f)
	}
	r.evictMu.Unlock()
	for _, m := range evicted {
		for _, f := range fs {
			r.contain("eviction listener", func() { f(m) })
		}
	}
}

// contain runs f, logging a panic instead of letting it reach the roll or a sweep.
func (r *Registry) contain(what string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			r.opts.logger.Error("metrics: "+what+" panicked", "panic", p)
		}
	}()
	f()
}
