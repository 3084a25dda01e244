package metrics

// OnCommandEvicted registers f to learn the key of every command whose metrics the
// registry evicted for idleness (the breaker registry drops its breaker for the key, so
// both come back fresh together). f runs on the metrics goroutine; cancel removes it.
func (r *Registry) OnCommandEvicted(f func(key string)) (cancel func()) {
	r.mu.Lock()
	r.nextID++
	id := r.nextID
	r.onEvict[id] = f
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.onEvict, id)
		r.mu.Unlock()
	}
}

// maybeEvict forgets, every eighth of the idle timeout, the keys that saw no event for
// the idle timeout, have nothing in flight and nothing left in their windows.
func (r *Registry) maybeEvict(end int64) {
	idle := int64(r.opts.idleTimeout / r.opts.resolution)
	if r.opts.idleTimeout == 0 || end < r.nextSweep {
		return
	}
	r.nextSweep = end + max(idle/8, 1)
	evictable := func(s *series) bool {
		if s.activeAt != 0 || s.current.Load() != 0 || end-s.lastUsed.Load() < idle {
			return false
		}
		s.evicted.Store(true)
		return true
	}
	var gone []string
	r.mu.Lock()
	for k, m := range r.commands {
		if evictable(m.s) {
			delete(r.commands, k)
			gone = append(gone, k)
		}
	}
	for k, m := range r.pools {
		if evictable(m.s) {
			delete(r.pools, k)
		}
	}
	for k, m := range r.collapsers {
		if evictable(m.s) {
			delete(r.collapsers, k)
		}
	}
	listeners := make([]func(string), 0, len(r.onEvict))
	for _, f := range r.onEvict {
		listeners = append(listeners, f)
	}
	r.mu.Unlock()
	for _, k := range gone {
		for _, f := range listeners {
			f(k)
		}
	}
}

// revive puts back an evicted series that got an event through a pointer its user kept,
// unless a fresh one already took its key (then it lives on unlisted until dropped).
func (r *Registry) revive(s *series) {
	s.evicted.Store(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch m := s.owner.(type) {
	case *CommandMetrics:
		if r.commands[s.key] == nil {
			r.commands[s.key] = m
		}
	case *ThreadPoolMetrics:
		if r.pools[s.key] == nil {
			r.pools[s.key] = m
		}
	case *CollapserMetrics:
		if r.collapsers[s.key] == nil {
			r.collapsers[s.key] = m
		}
	}
}

// reportDropped logs, at most once a second, how many events the stream dropped.
func (r *Registry) reportDropped() {
	d := r.bus.Dropped()
	if d == r.dropped {
		return
	}
	now := r.clk.Now().UnixNano()
	if now-r.droppedAt < 1e9 {
		return
	}
	r.opts.logger.Warn("metrics: events dropped: the consumer fell behind",
		"dropped", d-r.dropped, "total", d)
	r.dropped, r.droppedAt = d, now
}
