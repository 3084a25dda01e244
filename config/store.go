package config

import (
	"errors"
	"hash/maphash"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"weak"
)

// Values are the values set in code for one key of the scope O (CommandProperties,
// ThreadPoolProperties or CollapserProperties), by Hystrix short name. They rank below
// the key's dynamic value and above the dynamic default. Unknown names are an error. The
// scope is part of the type: values of one scope do not compile where another's are
// expected (config.Set of a thread-pool Key's entries is not a command's Overrides).
type Values[O scopeOwner] map[string]string

// Overrides are a command key's values set in code, e.g.
// {"execution.isolation.thread.timeoutInMilliseconds": "500"}.
type Overrides = Values[CommandProperties]

// ThreadPoolOverrides are a thread-pool key's values set in code, e.g. {"coreSize": "4"}.
type ThreadPoolOverrides = Values[ThreadPoolProperties]

// CollapserOverrides are a collapser key's values set in code, e.g.
// {"timerDelayInMilliseconds": "5"}.
type CollapserOverrides = Values[CollapserProperties]

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
// Whenever a source changes, the Store re-resolves the properties of the keys the change
// concerns and stores the values that changed in their Property: a change of
// hystrix.<scope>.<KEY>.X concerns that key, one of hystrix.<scope>.default.X every key
// of the scope (a source that does not say which names changed, see NameSubscriber:
// every key). A bad value (unparsable, out of range, breaking a cross-property rule) is
// ignored: the property keeps its previous value (for a key created just now: the value
// set in code, else the built-in default), and the *PropertyError is logged with
// slog.Warn and passed to every OnError callback, once per distinct bad value (a bad
// default value once, not once per key).
//
// A name of a source that is meant to be a property but names none is logged once per
// name with the nearest property name: a misspelt property
// (hystrix.command.GetUser.execution.timeout.enable), scope or prefix
// (hystrix.comand.GetUser…, Hystrix.command…, HYSTRIX_THREAD_POOL_…). Meant to be one is
// every name that starts with "hystrix" in any letter case (or one letter off) and '.'
// or '_', and in a source whose every name is meant to be a property (PropertiesOnly:
// the etcd source) every name; the HYSTRIX_COMMAND_… form names a property in the
// environment only. The source's change call (MemorySource.Set, FileSource.Reload)
// returns both kinds in a *RefusedError: every entry of the source refused now. A name
// of a key the Store does not hold (hystrix.command.GetUsr.…) is logged once when a key
// spelt close to it is created, with that key as a hint (ErrUnknownKey); Check lists
// every entry the Store cannot apply, such names included. A strict Store (SetStrict)
// refuses a source or a key instead of applying the rest.
//
// Keys are held until forgotten (ForgetCommand, ForgetThreadPool; a collapser key is held for good).
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
	forgotten  []weakKeyed           // forgotten keys, refreshed while still referenced
	pruneAt    int                   // len(forgotten) that triggers dropping the collected ones
	scratch    []any                 // candidate values while resolving one key
	refused    map[refusal]refusedBy // the bad values of the held keys
	warned     map[string]struct{}   // unknown dynamic names logged so far
	envKeys    map[uint64]keyed      // hash of envName(hystrix.<scope>.<KEY>.) -> a held key with it
	envSeed    maphash.Seed
	logger     atomic.Pointer[slog.Logger] // nil: slog.Default()
	strict     atomic.Bool
	parent     *Store   // the Store whose sources it follows (NewDefaultStore), nil if none
	followers  []*Store // the Stores following its sources

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
	rules   nameRules
	cancel  func()
	unknown map[string]*PropertyError // names of it that name no property; under Store.mu

	inherited bool                            // followed from the parent Store (NewDefaultStore)
	byKey     map[scopedKey]map[string]string // its property names by key: name -> short name; under Store.mu
}

// subscribe subscribes s to src, through NameSubscriber if src has it.
func (s *Store) subscribe(src Source) *source {
	x := &source{Source: src, rules: rulesOf(src)}
	if n, ok := src.(NameSubscriber); ok {
		x.cancel = n.SubscribeNames(func(names []string) error { return s.changed(x, names) })
	} else {
		x.cancel = src.Subscribe(s.refresh)
	}
	return x
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
		refused:    map[refusal]refusedBy{},
		warned:     map[string]struct{}{},
		envKeys:    map[uint64]keyed{},
		envSeed:    maphash.MakeSeed(),
	}
	for _, src := range sources {
		if src != nil {
			s.sources = append(s.sources, s.subscribe(src))
		}
	}
	_ = s.refresh() // warns about unknown names
	return s
}

// AddSource adds src below every source the Store has (NewStore's, then those added
// before), subscribes to it and re-resolves every key. It is how a file or etcd source
// joins Default: values it sets take effect at once, in every Store that follows Default
// too (NewDefaultStore). Entries it refuses (bad values, names that name no property)
// are reported as for any change (slog, OnError, Check) and the others apply; a strict
// Store (SetStrict) instead adds no source with a refused entry and returns them all as a
// *RefusedError. remove takes src out again and re-resolves; it may be called more than
// once. On a closed Store AddSource returns ErrClosed. When err is not nil, src was not
// added.
func (s *Store) AddSource(src Source) (remove func(), err error) {
	added := s.subscribe(src)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		added.cancel()
		return func() {}, ErrClosed
	}
	s.sources = append(s.sources, added)
	followers := slices.Clone(s.followers)
	s.mu.Unlock()
	removes := []func(){s.dropper(added)}
	for _, f := range followers {
		removes = append(removes, f.inherit(src))
	}
	var once sync.Once
	remove = func() {
		once.Do(func() {
			for _, r := range removes {
				r()
			}
		})
	}
	if err := refusedFor(src, s.refresh()); err != nil && s.strictNow() {
		remove()
		return func() {}, err
	}
	return remove, nil
}

// dropper returns the func that takes added out of s and re-resolves.
func (s *Store) dropper(added *source) func() {
	return func() {
		added.cancel()
		s.mu.Lock()
		s.sources = slices.DeleteFunc(s.sources, func(x *source) bool { return x == added })
		s.mu.Unlock()
		_ = s.refresh()
	}
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
// call (errors.Is ErrUnknownProperty / ErrInvalidValue, one *PropertyError per problem), and then
// nothing is cached or returned.
func (s *Store) Command(key string, inCode Overrides) (*CommandProperties, error) {
	return getOrCreate(s, &s.commands, commandScope, key, inCode)
}

// PeekCommand returns the properties of a command key without fixing them: the held
// ones if Command made them, else properties resolved from the sources alone that the
// Store does not keep (as after ForgetCommand), so that the key's definition still makes
// them with its values set in code. Readers that may come before a key's definition use
// it (metrics.Registry.Command). A definition racing the first peek may get the peeked
// properties, as it would from a Command call without values.
func (s *Store) PeekCommand(key string) (*CommandProperties, error) {
	return peek(s, &s.commands, commandScope, key)
}

// PeekThreadPool is PeekCommand for a thread-pool key.
func (s *Store) PeekThreadPool(key string) (*ThreadPoolProperties, error) {
	return peek(s, &s.pools, threadPoolScope, key)
}

// PeekCollapser is PeekCommand for a collapser key.
func (s *Store) PeekCollapser(key string) (*CollapserProperties, error) {
	return peek(s, &s.collapsers, collapserScope, key)
}

// peek returns the held properties of key, or ones it made and forgot at once.
func peek[P any, PP interface {
	*P
	keyed
}](s *Store, cache *map[string]*P, sc *scope[P], key string) (*P, error) {
	p, made, err := create[P, PP](s, cache, sc, key, nil)
	if made {
		forget[P, PP](s, cache, key, p)
	}
	return p, err
}

// ThreadPool returns the properties of a thread-pool key (see Command for caching and
// errors).
func (s *Store) ThreadPool(key string, inCode ThreadPoolOverrides) (*ThreadPoolProperties, error) {
	return getOrCreate(s, &s.pools, threadPoolScope, key, inCode)
}

// Collapser returns the properties of a collapser key (see Command for caching and
// errors).
func (s *Store) Collapser(key string, inCode CollapserOverrides) (*CollapserProperties, error) {
	return getOrCreate(s, &s.collapsers, collapserScope, key, inCode)
}

// keyed is the owner of the properties of one key: *CommandProperties,
// *ThreadPoolProperties or *CollapserProperties.
type keyed interface {
	state() *keyState
	refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError
}

// getOrCreate, create, peek, forget and sorted take the map by address: compact replaces
// the maps, so they are read only under the lock.
func getOrCreate[P any, PP interface {
	*P
	keyed
}](s *Store, cache *map[string]*P, sc *scope[P], key string, inCode map[string]string) (*P, error) {
	s.mu.RLock()
	p, ok := (*cache)[key]
	same := ok && sc.sameInCode(PP(p).state(), inCode)
	s.mu.RUnlock()
	if ok {
		return cached(p, same, sc, key, inCode)
	}
	p, _, err := create[P, PP](s, cache, sc, key, inCode)
	return p, err
}

// create makes and holds the properties of key with inCode, unless the Store holds them
// already (then it returns those, as cached does); made says which.
func create[P any, PP interface {
	*P
	keyed
}](s *Store, cache *map[string]*P, sc *scope[P], key string, inCode map[string]string) (p *P, made bool, err error) {
	if key == "" {
		return nil, false, ErrEmptyKey
	}
	s.mu.Lock()
	if p, ok := (*cache)[key]; ok {
		same := sc.sameInCode(PP(p).state(), inCode)
		s.mu.Unlock()
		p, err := cached(p, same, sc, key, inCode)
		return p, false, err
	}
	p = sc.newKey(key)
	if err := sc.init(p, inCode, &s.scratch); err != nil {
		s.mu.Unlock()
		return nil, false, err
	}
	if err := s.strictRefusal(PP(p)); err != nil {
		s.mu.Unlock()
		return nil, false, err
	}
	(*cache)[key] = p
	PP(p).state().idx = len(s.sets)
	s.sets = append(s.sets, PP(p))
	errs := s.pairEnvName(PP(p))
	errs = append(errs, s.apply(PP(p))...)
	errs = append(errs, s.nearMisses(PP(p).state())...)
	s.mu.Unlock()
	s.report(errs)
	return p, true, nil
}

// cached returns the held properties p of key, after validating inCode unless it is the
// same as the values p was created with: the first creation wins, but a later call with
// an unknown name or a bad value still gets its error.
func cached[P any](p *P, same bool, sc *scope[P], key string, inCode map[string]string) (*P, error) {
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
func (s *Store) ForgetCommand(key string) bool { return forget(s, &s.commands, key, nil) }

// ForgetThreadPool drops the properties of a thread-pool key (see ForgetCommand).
func (s *Store) ForgetThreadPool(key string) bool { return forget(s, &s.pools, key, nil) }

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

// forget drops the properties of key from cache (if they are only, when only is not nil)
// and reports whether it did.
func forget[P any, PP interface {
	*P
	keyed
}](s *Store, cache *map[string]*P, key string, only *P) bool {
	s.mu.Lock()
	p, ok := (*cache)[key]
	if !ok || only != nil && p != only {
		s.mu.Unlock()
		return false
	}
	delete(*cache, key)
	k := PP(p).state()
	errs := s.unpairEnvName(PP(p))
	defer s.report(errs) // after the unlock below
	defer s.mu.Unlock()
	s.count(k.errs, -1)
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
func (s *Store) holds(k *keyState) bool { return s.held(k.scope, k.key) != nil }

// held returns the held key of scope, nil if none.
func (s *Store) held(scope, key string) keyed {
	switch scope {
	case commandScope.name:
		if p, ok := s.commands[key]; ok {
			return p
		}
	case threadPoolScope.name:
		if p, ok := s.pools[key]; ok {
			return p
		}
	case collapserScope.name:
		if p, ok := s.collapsers[key]; ok {
			return p
		}
	}
	return nil
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
	s.unfollow()
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

// apply re-resolves k, records its bad values and returns those to report now. s.mu is
// held.
func (s *Store) apply(k keyed) []*PropertyError {
	st := k.state()
	held := st.idx >= 0
	if held {
		s.count(st.errs, -1)
	}
	fresh := slices.DeleteFunc(st.unreported(s.resolve(k)), func(e *PropertyError) bool {
		_, other := s.refused[refusal{e.Name, e.Value}] // a bad default value: reported for the first key
		return other
	})
	if held {
		s.count(st.errs, 1)
	}
	return fresh
}

// refusal is a bad value held keys refuse: the name it came from and the value.
type refusal struct{ name, value string }

// refusedBy is the error of a refusal and how many held keys refuse it (every key of a
// scope refuses a bad default value).
type refusedBy struct {
	err  *PropertyError
	keys int
}

// count adds d to the keys that refuse each of errs. s.mu is held.
func (s *Store) count(errs []*PropertyError, d int) {
	for _, e := range errs {
		r := refusal{e.Name, e.Value}
		by := s.refused[r]
		if by.err == nil {
			by.err = e
		}
		if by.keys += d; by.keys == 0 {
			delete(s.refused, r)
		} else {
			s.refused[r] = by
		}
	}
}

// refresh re-resolves every key, the held ones and the forgotten ones still referenced,
// and checks every name of the sources: after a change of a source that does not say
// which names changed, or of the sources themselves. It returns every refused entry
// (joined *PropertyError), and reports the new ones.
func (s *Store) refresh() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	var fresh []*PropertyError
	for _, k := range s.sets {
		if k != nil {
			fresh = append(fresh, s.apply(k)...)
		}
	}
	forgotten, unheld := s.refreshForgotten(nil)
	fresh = append(fresh, forgotten...)
	for _, src := range s.sources {
		clear(src.unknown)
		clear(src.byKey)
		fresh = append(fresh, s.checkNames(src, src.Names())...)
	}
	err := s.refusals(unheld)
	s.mu.Unlock()
	s.report(fresh)
	return err
}

// changed re-resolves the keys that names of src concern, held and forgotten, and
// checks those names: after a change of a NameSubscriber. It returns every refused entry
// (joined *PropertyError), and reports the new ones.
func (s *Store) changed(src *source, names []string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	t := touchedBy(names)
	var fresh []*PropertyError
	for _, k := range s.touchedKeys(t) {
		fresh = append(fresh, s.apply(k)...)
	}
	forgotten, unheld := s.refreshForgotten(t.has)
	fresh = append(fresh, forgotten...)
	fresh = append(fresh, s.checkNames(src, names)...)
	err := s.refusals(unheld)
	s.mu.Unlock()
	s.report(fresh)
	return err
}

// touch is what the names of a change concern: keys by scope and key, and the scopes
// whose default level they name.
type touch struct {
	keys   map[scopedKey]bool
	scopes map[string]bool
}

type scopedKey struct{ scope, key string }

// touchedBy returns what names concern.
func touchedBy(names []string) touch {
	t := touch{keys: map[scopedKey]bool{}, scopes: map[string]bool{}}
	for _, name := range names {
		for _, n := range allNames {
			rest, ok := strings.CutPrefix(name, n.prefix)
			if !ok {
				continue
			}
			for i := max(1, len(rest)-n.longest-1); i < len(rest); i++ {
				if rest[i] == '.' && n.has(rest[i+1:]) {
					if key := rest[:i]; key == "default" {
						t.scopes[n.name] = true
					} else {
						t.keys[scopedKey{n.name, key}] = true
					}
				}
			}
		}
	}
	return t
}

// has reports whether t concerns the key of k.
func (t touch) has(k *keyState) bool { return t.scopes[k.scope] || t.keys[scopedKey{k.scope, k.key}] }

// touchedKeys returns the held keys t concerns, in creation order. s.mu is held.
func (s *Store) touchedKeys(t touch) []keyed {
	var out []keyed
	if len(t.scopes) > 0 {
		for _, k := range s.sets {
			if k != nil && t.scopes[k.state().scope] {
				out = append(out, k)
			}
		}
	}
	for sk := range t.keys {
		if k := s.held(sk.scope, sk.key); k != nil && !t.scopes[sk.scope] {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b keyed) int { return a.state().idx - b.state().idx })
	return out
}

// refreshForgotten re-resolves the forgotten keys still referenced that touched says a
// change concerns (nil: every one) and drops the collected ones. It returns the new bad
// values to report and the bad values now of the keys not held again (only those count
// while the key is not held again: the new properties report the same). s.mu is held.
func (s *Store) refreshForgotten(touched func(*keyState) bool) (fresh, unheld []*PropertyError) {
	s.forgotten = shrink(slices.DeleteFunc(s.forgotten, func(w weakKeyed) bool {
		k := w.value()
		if k == nil {
			return true
		}
		st := k.state()
		again := s.holds(st)
		if touched == nil || touched(st) {
			if errs := s.apply(k); !again {
				fresh = append(fresh, errs...)
			}
		}
		if !again {
			unheld = append(unheld, st.errs...)
		}
		return false
	}))
	s.pruneAt = 2*len(s.forgotten) + 64
	return fresh, unheld
}

// checkNames checks names of src, those it has, for names that are meant to be a
// property but name none, keeps src.unknown and src.byKey current, and returns those not
// logged before. s.mu is held.
func (s *Store) checkNames(src *source, names []string) (fresh []*PropertyError) {
	for _, name := range names {
		v, ok := src.Get(name)
		src.index(name, ok)
		hint, unknown := "", false
		if ok {
			hint, unknown = unknownName(name, src.rules)
		}
		if !unknown {
			delete(src.unknown, name)
			continue
		}
		e := &PropertyError{Name: name, Value: v, Err: ErrUnknownProperty, Hint: hint}
		if src.unknown == nil {
			src.unknown = map[string]*PropertyError{}
		}
		src.unknown[name] = e
		if _, seen := s.warned[name]; !seen {
			s.warned[name] = struct{}{}
			fresh = append(fresh, e)
		}
	}
	return fresh
}

// refusals joins every entry refused now: the bad values of the held keys, unheld (those
// of forgotten keys) and the unknown names of the sources. s.mu is held.
func (s *Store) refusals(unheld []*PropertyError) error {
	all := unheld
	for _, by := range s.refused {
		all = append(all, by.err)
	}
	for _, src := range s.sources {
		for _, e := range src.unknown {
			all = append(all, e)
		}
	}
	return errors.Join(asErrors(all)...)
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
		switch {
		case errors.Is(e.Err, ErrUnknownProperty):
			s.log().Warn("config: no property has this name, it is ignored",
				"property", e.Name, "value", e.Value, "hint", e.Hint)
		case errors.Is(e.Err, ErrUnknownKey):
			s.log().Warn("config: no key of this name is defined, its property waits for one",
				"property", e.Name, "value", e.Value, "hint", e.Hint)
		default:
			s.log().Warn("config: invalid property value ignored, previous value stays in force",
				"property", e.Name, "value", e.Value, "inCode", e.InCode, "error", e.Err)
		}
		for _, f := range fns {
			f(e)
		}
	}
}
