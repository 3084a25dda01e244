package config

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Source is a provider of dynamic property values keyed by full Hystrix name
// ("hystrix.command.GetUser.circuitBreaker.enabled", "hystrix.command.default.fallback.enabled").
//
// Get returns the raw value and whether it is set. Names lists every name the source
// has (the Store warns about those in a property scope that name no property).
// Subscribe registers onChange, to be called after the source's values changed (on the
// goroutine that changed them, with no lock of the source held); onChange returns the
// entries the subscriber refuses now (see RefusedError), nil if none. cancel removes it
// and may be called more than once.
type Source interface {
	Get(name string) (string, bool)
	Names() []string
	Subscribe(onChange func() error) (cancel func())
}

// RefusedError lists the entries of a source that the Stores using it refuse: values
// that do not parse, are out of range or break a cross-property rule (the property keeps
// its previous value) and names in a property scope that name no property. The other
// entries of the source apply. errors.Is(err, ErrInvalidValue) and ErrUnknownProperty
// work through it.
type RefusedError struct {
	// Source names the source, e.g. the file name.
	Source string
	// Entries are the refused entries, sorted by name.
	Entries []*PropertyError
}

// Error lists the refused entries.
func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	b.WriteString(e.Source)
	b.WriteString(": refused")
	for i, pe := range e.Entries {
		if i > 0 {
			b.WriteString(";")
		}
		b.WriteString(" ")
		b.WriteString(strings.TrimPrefix(pe.Error(), "config: "))
	}
	return b.String()
}

// Unwrap returns the entries.
func (e *RefusedError) Unwrap() []error { return asErrors(e.Entries) }

func asErrors(pes []*PropertyError) []error {
	out := make([]error, len(pes))
	for i, pe := range pes {
		out[i] = pe
	}
	return out
}

// propertyErrors returns the *PropertyError values in err's tree.
func propertyErrors(err error) []*PropertyError {
	if pe, ok := err.(*PropertyError); ok {
		return []*PropertyError{pe}
	}
	var out []*PropertyError
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, propertyErrors(e)...)
		}
	case interface{ Unwrap() error }:
		out = propertyErrors(u.Unwrap())
	}
	return out
}

// NameSubscriber is implemented by a Source that tells which names a change concerns;
// MemorySource, FileSource and the etcd source do. A Store subscribes through it instead
// of Subscribe: a change then re-resolves only the keys its names concern (every key of
// a scope for a default name) and checks only its names, so that what it costs follows
// what it touches, not the number of keys held.
//
// SubscribeNames registers onChange like Subscribe; onChange is called with the names
// whose value was set, changed or deleted, sorted (it must not modify them). It is also
// called with no names when a caller asks the source for the entries refused now (a
// Reload of an unchanged file, a Set to the same value), so that the answer includes
// keys created since the last change.
type NameSubscriber interface {
	SubscribeNames(onChange func(names []string) error) (cancel func())
}

// PropertiesOnly is implemented by a Source whose every name is meant to be a property,
// such as the keys under an etcd prefix, when OnlyProperties returns true: a Store then
// refuses each of its names that names no property, not only those that start like one
// (see Store).
type PropertiesOnly interface {
	OnlyProperties() bool
}

// mapSource is a mutex-guarded map of values with change subscribers; MemorySource,
// FileSource and the etcd source (through MemorySource) are built on it.
type mapSource struct {
	label string // RefusedError.Source

	mu     sync.RWMutex
	values map[string]string
	subs   map[uint64]func(names []string) error
	nextID uint64
}

// Get returns the value of name.
func (m *mapSource) Get(name string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.values[name]
	return v, ok
}

// Names returns every name, sorted.
func (m *mapSource) Names() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return slices.Sorted(maps.Keys(m.values))
}

// size returns the number of values.
func (m *mapSource) size() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.values)
}

// Subscribe calls onChange after every change that changed a value; cancel unsubscribes.
func (m *mapSource) Subscribe(onChange func() error) (cancel func()) {
	return m.SubscribeNames(func(names []string) error {
		if len(names) == 0 {
			return nil
		}
		return onChange()
	})
}

// SubscribeNames calls onChange with the names of every change (see NameSubscriber);
// cancel unsubscribes.
func (m *mapSource) SubscribeNames(onChange func(names []string) error) (cancel func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.subs == nil {
		m.subs = map[uint64]func([]string) error{}
	}
	id := m.nextID
	m.nextID++
	m.subs[id] = onChange
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.subs, id)
	}
}

// change applies edit to the values under the lock and notifies the subscribers (in
// subscription order) after unlocking, with the names edit returns as changed (sorted
// and without duplicates here), none if none. It returns the *RefusedError of the
// source's entries the subscribers refuse now, nil if none.
func (m *mapSource) change(edit func(values map[string]string) (changed []string)) error {
	m.mu.Lock()
	if m.values == nil {
		m.values = map[string]string{}
	}
	names := edit(m.values)
	slices.Sort(names)
	names = slices.Compact(names)
	ids := slices.Sorted(maps.Keys(m.subs))
	subs := make([]func([]string) error, len(ids))
	for i, id := range ids {
		subs[i] = m.subs[id]
	}
	m.mu.Unlock()
	var errs []error
	for _, f := range subs {
		errs = append(errs, f(names))
	}
	return refusedFor(m, errors.Join(errs...))
}

// MemorySource is an in-memory Source for values set at run time (admin endpoints,
// tests). Set, Apply and Replace notify subscribers synchronously: when
// they return, every Store using the source has re-resolved the properties the change
// concerns, and their error is the *RefusedError of the source's entries those Stores
// refuse now (nil if none), whether the call changed anything or not.
type MemorySource struct {
	mapSource
}

// NewMemorySource returns an empty MemorySource.
func NewMemorySource() *MemorySource { return &MemorySource{mapSource{label: "memory"}} }

// Set sets one value by full Hystrix name.
func (m *MemorySource) Set(name, value string) error {
	return m.Apply(map[string]string{name: value}, nil)
}

// Apply sets the values of set and then deletes the names of deleted (each property falls
// back to the next precedence level), with a single notification: properties that must
// change together (metrics.rollingStats.timeInMilliseconds and numBuckets) are validated
// together (the etcd source applies a watch response with it).
func (m *MemorySource) Apply(set map[string]string, deleted []string) error {
	return m.change(func(cur map[string]string) (changed []string) {
		for k, v := range set {
			if old, ok := cur[k]; !ok || old != v {
				cur[k] = v
				changed = append(changed, k)
			}
		}
		for _, k := range deleted {
			if _, ok := cur[k]; ok {
				delete(cur, k)
				changed = append(changed, k)
			}
		}
		return changed
	})
}

// Replace makes values the source's only values, with a single notification (a source
// that re-reads everything, like a file or a key prefix of etcd, uses it).
func (m *MemorySource) Replace(values map[string]string) error { return m.replace(values) }

func (m *mapSource) replace(values map[string]string) error {
	return m.change(func(cur map[string]string) (changed []string) {
		for k, old := range cur {
			if v, ok := values[k]; !ok || v != old {
				changed = append(changed, k)
			}
		}
		for k := range values {
			if _, ok := cur[k]; !ok {
				changed = append(changed, k)
			}
		}
		clear(cur)
		maps.Copy(cur, values)
		return changed
	})
}
