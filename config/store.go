package config

import (
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
)

// Overrides are the values set in code for one key, by Hystrix short name, e.g.
// {"execution.isolation.thread.timeoutInMilliseconds": "500"}. They rank below the
// key's dynamic value and above the dynamic default. Unknown names are an error.
type Overrides map[string]string

// Store resolves, caches and updates the properties of every command, thread-pool and
// collapser key from its Sources.
//
// Precedence, high to low: the dynamic hystrix.<scope>.<KEY>.X, the value set in code
// (Overrides), the dynamic hystrix.<scope>.default.X, the built-in default. Each dynamic
// name is looked up in the sources in the order given to NewStore: the first source that
// has the name wins. Specificity ranks above source order: a <KEY> value in a later
// source beats a default value in an earlier one.
//
// Whenever a source changes, the Store re-resolves every property of every key it holds
// and stores the values that changed in their Property. A bad value (unparsable, out of
// range, breaking a cross-property rule) is ignored: the property keeps its previous
// value (for a key created just now: the value set in code, else the built-in default),
// and the *PropertyError is logged with slog.Warn and passed to every OnError callback,
// once per distinct bad value.
//
// A Store is safe for concurrent use.
type Store struct {
	sources []Source
	cancels []func()

	mu         sync.RWMutex
	closed     bool
	sets       []*propSet
	commands   map[string]*CommandProperties
	pools      map[string]*ThreadPoolProperties
	collapsers map[string]*CollapserProperties

	errMu  sync.Mutex
	onErr  map[uint64]func(error)
	nextID uint64
}

// ErrEmptyKey is returned for an empty command, thread-pool or collapser key.
var ErrEmptyKey = errors.New("config: empty key")

// NewStore returns a Store over sources (earlier sources win) and subscribes to their
// changes; Close unsubscribes. With no sources every property has its value set in
// code or its built-in default.
func NewStore(sources ...Source) *Store {
	s := &Store{
		commands:   map[string]*CommandProperties{},
		pools:      map[string]*ThreadPoolProperties{},
		collapsers: map[string]*CollapserProperties{},
		onErr:      map[uint64]func(error){},
	}
	for _, src := range sources {
		if src != nil {
			s.sources = append(s.sources, src)
		}
	}
	for _, src := range s.sources {
		s.cancels = append(s.cancels, src.Subscribe(s.refresh))
	}
	return s
}

var (
	defaultSource = NewMemorySource()
	defaultStore  = sync.OnceValue(func() *Store { return NewStore(defaultSource, NewEnvSource()) })
)

// Default returns the process-wide Store, made on first use over DefaultSource (first)
// and NewEnvSource. It is never closed.
func Default() *Store { return defaultStore() }

// DefaultSource returns the MemorySource of the Default store: values set on it take
// effect at once in every property of the Default store.
func DefaultSource() *MemorySource { return defaultSource }

// Command returns the properties of a command key. The first call for a key creates and
// caches them with inCode; later calls return the cached properties and ignore inCode
// (first creation wins, as in Hystrix). An unknown name or invalid value in inCode is an
// error (errors.Is ErrUnknownProperty / ErrInvalidValue) and nothing is cached.
func (s *Store) Command(key string, inCode Overrides) (*CommandProperties, error) {
	return getOrCreate(s, s.commands, key, inCode, newCommandProperties)
}

// ThreadPool returns the properties of a thread-pool key (see Command for caching and
// errors).
func (s *Store) ThreadPool(key string, inCode Overrides) (*ThreadPoolProperties, error) {
	return getOrCreate(s, s.pools, key, inCode, newThreadPoolProperties)
}

// Collapser returns the properties of a collapser key (see Command for caching and
// errors).
func (s *Store) Collapser(key string, inCode Overrides) (*CollapserProperties, error) {
	return getOrCreate(s, s.collapsers, key, inCode, newCollapserProperties)
}

func getOrCreate[P any](s *Store, cache map[string]*P, key string, inCode Overrides,
	build func(string) (*P, *propSet)) (*P, error) {
	s.mu.RLock()
	p, ok := cache[key]
	s.mu.RUnlock()
	if ok {
		return p, nil
	}
	if key == "" {
		return nil, ErrEmptyKey
	}
	s.mu.Lock()
	if p, ok := cache[key]; ok {
		s.mu.Unlock()
		return p, nil
	}
	p, set := build(key)
	if err := set.init(inCode); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	errs := set.refresh(s.lookup)
	cache[key] = p
	s.sets = append(s.sets, set)
	s.mu.Unlock()
	s.report(errs)
	return p, nil
}

// Commands returns the properties of every command key created so far, sorted by key.
func (s *Store) Commands() []*CommandProperties { return sorted(s, s.commands) }

// ThreadPools returns the properties of every thread-pool key created so far, sorted by key.
func (s *Store) ThreadPools() []*ThreadPoolProperties { return sorted(s, s.pools) }

// Collapsers returns the properties of every collapser key created so far, sorted by key.
func (s *Store) Collapsers() []*CollapserProperties { return sorted(s, s.collapsers) }

func sorted[P any](s *Store, cache map[string]*P) []*P {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*P, 0, len(cache))
	for _, k := range slices.Sorted(maps.Keys(cache)) {
		out = append(out, cache[k])
	}
	return out
}

// OnError registers f to receive every *PropertyError of a rejected dynamic value (in
// addition to the slog.Warn). f runs on the goroutine that changed the source, with no
// lock of the Store held; cancel unregisters it.
func (s *Store) OnError(f func(error)) (cancel func()) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	id := s.nextID
	s.nextID++
	s.onErr[id] = f
	return func() {
		s.errMu.Lock()
		defer s.errMu.Unlock()
		delete(s.onErr, id)
	}
}

// Close unsubscribes from the sources; properties keep their last values. The Store
// starts no goroutines, so nothing else needs stopping. Close is idempotent.
func (s *Store) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	cancels := s.cancels
	s.cancels = nil
	s.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// lookup returns the value of name from the first source that has it.
func (s *Store) lookup(name string) (string, bool) {
	for _, src := range s.sources {
		if v, ok := src.Get(name); ok {
			return v, true
		}
	}
	return "", false
}

// refresh re-resolves every property after a source change.
func (s *Store) refresh() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	var errs []*PropertyError
	for _, set := range s.sets {
		errs = append(errs, set.refresh(s.lookup)...)
	}
	s.mu.Unlock()
	s.report(errs)
}

// report logs each rejected value and passes it to the OnError callbacks.
func (s *Store) report(errs []*PropertyError) {
	if len(errs) == 0 {
		return
	}
	s.errMu.Lock()
	ids := slices.Sorted(maps.Keys(s.onErr))
	fns := make([]func(error), len(ids))
	for i, id := range ids {
		fns[i] = s.onErr[id]
	}
	s.errMu.Unlock()
	for _, e := range errs {
		slog.Warn("config: invalid property value ignored, previous value stays in force",
			"property", e.Name, "value", e.Value, "inCode", e.InCode, "error", e.Err)
		for _, f := range fns {
			f(e)
		}
	}
}
