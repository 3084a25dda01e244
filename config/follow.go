package config

import "slices"

// NewDefaultStore returns a fresh Store over the sources of Default, now and later:
// DefaultSource, the environment (as it is now) and every source added to Default with
// AddSource, at the place it has there (removed when it is removed there). Its keys and their
// properties are its own; a source added to it with AddSource ranks below Default's. A
// change of a source reaches it as it reaches Default, on the goroutine that made the
// change. It is strict when Default is (SetStrict). Close it when done: it then stops
// following Default. command.NewRuntime makes one for a runtime not given a store.
func NewDefaultStore() *Store {
	d := Default()
	s := NewStore()
	s.parent = d
	d.mu.Lock()
	for _, src := range d.sources {
		from := src.Source
		if _, env := from.(*envSource); env {
			from = NewEnvSource()
		}
		x := s.subscribe(from)
		x.inherited = true
		s.mu.Lock() // a change of a source subscribed above may read s.sources already
		s.sources = append(s.sources, x)
		s.mu.Unlock()
	}
	d.followers = append(d.followers, s)
	d.mu.Unlock()
	_ = s.refresh()
	return s
}

// inherit adds src, just added to the Store s follows, after the sources s inherited
// before it, and returns the func that takes it out again.
func (s *Store) inherit(src Source) (remove func()) {
	added := s.subscribe(src)
	added.inherited = true
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		added.cancel()
		return func() {}
	}
	at := 0
	for at < len(s.sources) && s.sources[at].inherited {
		at++
	}
	s.sources = slices.Insert(s.sources, at, added)
	s.mu.Unlock()
	_ = s.refresh()
	return s.dropper(added)
}

// unfollow stops s following its parent's sources (at Close).
func (s *Store) unfollow() {
	if p := s.parent; p != nil {
		p.mu.Lock()
		p.followers = slices.DeleteFunc(p.followers, func(f *Store) bool { return f == s })
		p.mu.Unlock()
	}
}

// strictRefusal returns, when s is strict, the *RefusedError of the bad values the
// sources set for k, a key being created, nil if none or s is not strict. s.mu is held.
func (s *Store) strictRefusal(k keyed) error {
	if !s.strictNow() {
		return nil
	}
	errs := s.resolve(k)
	if len(errs) == 0 {
		return nil
	}
	st := k.state()
	return &RefusedError{Source: "the sources of " + namesOf(st.scope).label + " key " + st.key, Entries: errs}
}
