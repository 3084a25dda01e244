package config

import (
	"errors"
	"hash/maphash"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"weak"
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
// name is looked up in the sources in the order given to NewStore, followed by those
// added with AddSource in the order added: the first source that has the name wins.
// Specificity ranks above source order: a <KEY> value in a later source beats a default
// value in an earlier one.
//
// Whenever a source changes, the Store re-resolves every property of every key it holds
// and stores the values that changed in their Property. A bad value (unparsable, out of
// range, breaking a cross-property rule) is ignored: the property keeps its previous
// value (for a key created just now: the value set in code, else the built-in default),
// and the *PropertyError is logged with slog.Warn and passed to every OnError callback,
// once per distinct bad value. A name of a source in a property scope that names no
// property (hystrix.command.GetUser.execution.timeout.enable) is logged once per name,
// with the nearest property name. The source's change call (MemorySource.Set,
// FileSource.Reload) returns both kinds in a *RefusedError.
//
// Keys are held until forgotten (ForgetCommand, ForgetThreadPool, ForgetCollapser).
//
// A Store is safe for concurrent use.
type Store struct {
	mu         sync.RWMutex
	sources    []*source // in precedence order
	closed     bool
	sets       []keyed // every held key in creation order; nil where forgotten
	dead       int     // nil entries in sets
	commands   map[string]*CommandProperties
	pools      map[string]*ThreadPoolProperties
	collapsers map[string]*CollapserProperties
	forgotten  []weakKeyed       // forgotten keys, refreshed while still referenced
	pruneAt    int               // len(forgotten) that triggers dropping the collected ones
	scratch    []any             // candidate values while resolving one key
	warned     map[string]string // unknown dynamic names logged so far -> their hint
	envKeys    map[uint64]keyed  // hash of EnvName(hystrix.<scope>.<KEY>.) -> a held key with it
	envSeed    maphash.Seed
	logger     atomic.Pointer[slog.Logger] // nil: slog.Default()

	errMu  sync.Mutex
	onErr  map[uint64]func(error)
	nextID uint64
}

// SetLogger sets the logger for refused and unknown property values (default
// slog.Default(); nil restores it). command.NewRuntime gives a store it makes its own
// logger.
func (s *Store) SetLogger(l *slog.Logger) { s.logger.Store(l) }

func (s *Store) log() *slog.Logger {
	if l := s.logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// ErrEmptyKey is returned for an empty command, thread-pool or collapser key.
var ErrEmptyKey = errors.New("config: empty key")

// source is a Source of a Store with its subscription.
type source struct {
	Source
	cancel func()
}

// ErrClosed is returned by AddSource on a closed Store.
var ErrClosed = errors.New("config: store closed")

// NewStore returns a Store over sources (earlier sources win) and subscribes to their
// changes; Close unsubscribes. With no sources every property has its value set in
// code or its built-in default.
func NewStore(sources ...Source) *Store {
	s := &Store{
		commands:   map[string]*CommandProperties{},
		pools:      map[string]*ThreadPoolProperties{},
		collapsers: map[string]*CollapserProperties{},
		onErr:      map[uint64]func(error){},
		warned:     map[string]string{},
		envKeys:    map[uint64]keyed{},
		envSeed:    maphash.MakeSeed(),
	}
	for _, src := range sources {
		if src != nil {
			s.sources = append(s.sources, &source{Source: src, cancel: src.Subscribe(s.refresh)})
		}
	}
	_ = s.refresh() // warns about unknown names
	return s
}

// AddSource adds src below every source the Store has (NewStore's, then those added
// before), subscribes to it and re-resolves every key. It is how a file or etcd source
// joins Default: values it sets take effect at once, refused ones are reported as for
// any change (slog, OnError; the source's own change calls return them). remove takes
// src out again and re-resolves; it may be called more than once. On a closed Store
// AddSource returns ErrClosed.
func (s *Store) AddSource(src Source) (remove func(), err error) {
	added := &source{Source: src, cancel: src.Subscribe(s.refresh)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		added.cancel()
		return func() {}, ErrClosed
	}
	s.sources = append(s.sources, added)
	s.mu.Unlock()
	_ = s.refresh()
	var once sync.Once
	return func() {
		once.Do(func() {
			added.cancel()
			s.mu.Lock()
			s.sources = slices.DeleteFunc(s.sources, func(x *source) bool { return x == added })
			s.mu.Unlock()
			_ = s.refresh()
		})
	}, nil
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
// caches them with inCode; later calls return the cached properties and do not apply
// inCode (first creation wins, as in Hystrix; Overrides.Diff tells what a later call
// would have changed). An unknown name or invalid value in inCode is an error on every
// call (errors.Is ErrUnknownProperty / ErrInvalidValue; see ValidateCommand), and then
// nothing is cached or returned.
func (s *Store) Command(key string, inCode Overrides) (*CommandProperties, error) {
	return getOrCreate(s, &s.commands, commandScope, key, inCode)
}

// ThreadPool returns the properties of a thread-pool key (see Command for caching and
// errors).
func (s *Store) ThreadPool(key string, inCode Overrides) (*ThreadPoolProperties, error) {
	return getOrCreate(s, &s.pools, threadPoolScope, key, inCode)
}

// Collapser returns the properties of a collapser key (see Command for caching and
// errors).
func (s *Store) Collapser(key string, inCode Overrides) (*CollapserProperties, error) {
	return getOrCreate(s, &s.collapsers, collapserScope, key, inCode)
}

// keyed is the owner of the properties of one key: *CommandProperties,
// *ThreadPoolProperties or *CollapserProperties.
type keyed interface {
	state() *keyState
	refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError
}

// getOrCreate, forget and sorted take the map by address: compact replaces the maps,
// so they are read only under the lock.
func getOrCreate[P any, PP interface {
	*P
	keyed
}](s *Store, cache *map[string]*P, sc *scope[P], key string, inCode Overrides) (*P, error) {
	s.mu.RLock()
	p, ok := (*cache)[key]
	same := ok && sc.sameInCode(PP(p).state(), inCode)
	s.mu.RUnlock()
	if ok {
		return cached(p, same, sc, key, inCode)
	}
	if key == "" {
		return nil, ErrEmptyKey
	}
	s.mu.Lock()
	if p, ok := (*cache)[key]; ok {
		same := sc.sameInCode(PP(p).state(), inCode)
		s.mu.Unlock()
		return cached(p, same, sc, key, inCode)
	}
	p = sc.newKey(key)
	if err := sc.init(p, inCode, &s.scratch); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	(*cache)[key] = p
	PP(p).state().idx = len(s.sets)
	s.sets = append(s.sets, PP(p))
	errs := s.pairEnvName(PP(p))
	errs = append(errs, PP(p).state().unreported(s.resolve(PP(p)))...)
	s.mu.Unlock()
	s.report(errs)
	return p, nil
}

// cached returns the held properties p of key, after validating inCode unless it is the
// same as the values p was created with: the first creation wins, but a later call with
// an unknown name or a bad value still gets its error.
func cached[P any](p *P, same bool, sc *scope[P], key string, inCode Overrides) (*P, error) {
	if !same && len(inCode) > 0 {
		if err := sc.validate(key, inCode); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// ForgetCommand drops the properties of a command key and reports whether the Store
// held them. The next Command call for the key creates fresh properties with that
// call's in-code values (first creation wins again). It is meant for dynamic keys that
// went idle (e.g. evicted from metrics): once nothing else references the dropped
// properties they cost no memory (the Store's own bookkeeping shrinks with its keys).
//
// Properties already handed out keep working: the Store holds them weakly and keeps
// re-resolving them on source changes for as long as they (or any one of their
// *Property fields) are referenced, so e.g. a forced-open circuit breaker still
// reaches a late holder. Their bad values are reported only while the key is not
// held again (the new properties report the same ones). They no longer appear in
// Commands.
func (s *Store) ForgetCommand(key string) bool { return forget(s, &s.commands, key) }

// ForgetThreadPool drops the properties of a thread-pool key (see ForgetCommand).
func (s *Store) ForgetThreadPool(key string) bool { return forget(s, &s.pools, key) }

// ForgetCollapser drops the properties of a collapser key (see ForgetCommand).
func (s *Store) ForgetCollapser(key string) bool { return forget(s, &s.collapsers, key) }

// weakKeyed is a forgotten key, held weakly; value is nil once it was collected.
type weakKeyed interface{ value() keyed }

type weakRef[P any, PP interface {
	*P
	keyed
}] struct{ p weak.Pointer[P] }

func (w weakRef[P, PP]) value() keyed {
	if p := w.p.Value(); p != nil {
		return PP(p)
	}
	return nil
}

func forget[P any, PP interface {
	*P
	keyed
}](s *Store, cache *map[string]*P, key string) bool {
	s.mu.Lock()
	p, ok := (*cache)[key]
	if !ok {
		s.mu.Unlock()
		return false
	}
	delete(*cache, key)
	k := PP(p).state()
	errs := s.unpairEnvName(PP(p))
	defer s.report(errs) // after the unlock below
	defer s.mu.Unlock()
	s.sets[k.idx] = nil
	k.idx = -1
	if s.dead++; s.dead > len(s.sets)/2 {
		s.compact()
	}
	s.forgotten = append(s.forgotten, weakRef[P, PP]{weak.Make(p)})
	if len(s.forgotten) >= s.pruneAt {
		s.forgotten = shrink(slices.DeleteFunc(s.forgotten, func(w weakKeyed) bool { return w.value() == nil }))
		s.pruneAt = 2*len(s.forgotten) + 64
	}
	return true
}

// compact drops the forgotten entries of sets and rebuilds the key maps (Go maps do
// not shrink), so that memory follows the number of held keys. It runs when more
// than half of sets is forgotten: amortized O(1) per forgotten key.
func (s *Store) compact() {
	live := make([]keyed, 0, len(s.sets)-s.dead)
	for _, k := range s.sets {
		if k != nil {
			k.state().idx = len(live)
			live = append(live, k)
		}
	}
	s.sets, s.dead = live, 0
	s.commands = rebuilt(s.commands)
	s.pools = rebuilt(s.pools)
	s.collapsers = rebuilt(s.collapsers)
	s.envKeys = rebuilt(s.envKeys)
}

func rebuilt[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	maps.Copy(out, m)
	return out
}

// shrink returns ws in a right-sized array once most of its capacity is unused (an
// empty slice as nil), so forgotten keys leave no array behind.
func shrink(ws []weakKeyed) []weakKeyed {
	switch {
	case len(ws) == 0:
		return nil
	case cap(ws) > 2*len(ws)+64:
		return append([]weakKeyed(nil), ws...)
	}
	return ws
}

// holds reports whether the Store holds a key of k's scope with k's key.
func (s *Store) holds(k *keyState) bool {
	var ok bool
	switch k.scope {
	case commandScope.name:
		_, ok = s.commands[k.key]
	case threadPoolScope.name:
		_, ok = s.pools[k.key]
	case collapserScope.name:
		_, ok = s.collapsers[k.key]
	}
	return ok
}

// Commands returns the properties of every command key created so far, sorted by key.
func (s *Store) Commands() []*CommandProperties { return sorted(s, &s.commands) }

// ThreadPools returns the properties of every thread-pool key created so far, sorted by key.
func (s *Store) ThreadPools() []*ThreadPoolProperties { return sorted(s, &s.pools) }

// Collapsers returns the properties of every collapser key created so far, sorted by key.
func (s *Store) Collapsers() []*CollapserProperties { return sorted(s, &s.collapsers) }

func sorted[P any](s *Store, cache *map[string]*P) []*P {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*P, 0, len(*cache))
	for _, k := range slices.Sorted(maps.Keys(*cache)) {
		out = append(out, (*cache)[k])
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
// starts no goroutines, so nothing else needs stopping (sources that watch something,
// like FileSource, have a Close of their own). Close is idempotent.
func (s *Store) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	sources := s.sources
	s.mu.Unlock()
	for _, src := range sources {
		src.cancel()
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

// resolve re-resolves the properties of k and returns every bad value (not only new
// ones). s.mu is held.
func (s *Store) resolve(k keyed) []*PropertyError {
	st := k.state()
	if st.envTwin == "" {
		return k.refresh(s.lookup, &s.scratch)
	}
	errs := k.refresh(s.lookupUnmapped(st.name("")), &s.scratch)
	return append(errs, s.ambiguous(st)...)
}

// refresh re-resolves every property after a source change, of the held keys and of
// the forgotten ones still referenced, and checks the names of the sources. It returns
// every refused entry (joined *PropertyError), and reports the new ones.
func (s *Store) refresh() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	var all, fresh []*PropertyError
	for _, k := range s.sets {
		if k != nil {
			errs := s.resolve(k)
			all = append(all, errs...)
			fresh = append(fresh, k.state().unreported(errs)...)
		}
	}
	s.forgotten = shrink(slices.DeleteFunc(s.forgotten, func(w weakKeyed) bool {
		k := w.value()
		if k == nil {
			return true
		}
		errs := s.resolve(k)
		if kerrs := k.state().unreported(errs); !s.holds(k.state()) {
			all = append(all, errs...)
			fresh = append(fresh, kerrs...)
		}
		return false
	}))
	s.pruneAt = 2*len(s.forgotten) + 64
	unknown, warn := s.unknownNames()
	s.mu.Unlock()
	s.report(append(fresh, warn...))
	return errors.Join(asErrors(append(all, unknown...))...)
}

// unknownNames returns an error for every name of the sources that is in a property
// scope but names no property, and those of them not reported before. s.mu is held.
func (s *Store) unknownNames() (all, fresh []*PropertyError) {
	for _, src := range s.sources {
		for _, name := range src.Names() {
			hint, seen := s.warned[name]
			if !seen {
				var unknown bool
				if hint, unknown = unknownName(name); !unknown {
					continue
				}
			}
			v, _ := src.Get(name)
			e := &PropertyError{Name: name, Value: v, Err: ErrUnknownProperty, Hint: hint}
			all = append(all, e)
			if !seen {
				s.warned[name] = hint
				fresh = append(fresh, e)
			}
		}
	}
	return all, fresh
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
		if errors.Is(e.Err, ErrUnknownProperty) {
			s.log().Warn("config: no property has this name, it is ignored",
				"property", e.Name, "value", e.Value, "hint", e.Hint)
		} else {
			s.log().Warn("config: invalid property value ignored, previous value stays in force",
				"property", e.Name, "value", e.Value, "inCode", e.InCode, "error", e.Err)
		}
		for _, f := range fns {
			f(e)
		}
	}
}
