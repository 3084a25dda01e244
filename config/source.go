package config

import (
	"maps"
	"slices"
	"sync"
)

// Source is a provider of dynamic property values keyed by full Hystrix name
// ("hystrix.command.GetUser.circuitBreaker.enabled", "hystrix.command.default.fallback.enabled").
//
// Get returns the raw value and whether it is set. Subscribe registers onChange, called
// after the source's values changed (on the goroutine that changed them, with no lock of
// the source held); cancel removes it and may be called more than once.
type Source interface {
	Get(name string) (string, bool)
	Subscribe(onChange func()) (cancel func())
}

// mapSource is a mutex-guarded map of values with change subscribers; MemorySource and
// FileSource are built on it.
type mapSource struct {
	mu     sync.RWMutex
	values map[string]string
	subs   map[uint64]func()
	nextID uint64
}

// Get returns the value of name.
func (m *mapSource) Get(name string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.values[name]
	return v, ok
}

// Subscribe calls onChange after every change; cancel unsubscribes.
func (m *mapSource) Subscribe(onChange func()) (cancel func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.subs == nil {
		m.subs = map[uint64]func(){}
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

// update applies change to the values under the lock and, if it reports a change,
// notifies the subscribers (in subscription order) after unlocking.
func (m *mapSource) update(change func(values map[string]string) bool) {
	m.mu.Lock()
	if m.values == nil {
		m.values = map[string]string{}
	}
	if !change(m.values) {
		m.mu.Unlock()
		return
	}
	ids := slices.Sorted(maps.Keys(m.subs))
	subs := make([]func(), len(ids))
	for i, id := range ids {
		subs[i] = m.subs[id]
	}
	m.mu.Unlock()
	for _, f := range subs {
		f()
	}
}

// MemorySource is an in-memory Source for values set at run time (admin endpoints,
// tests). Set, SetAll and Delete notify subscribers synchronously: when they return,
// every Store using the source has re-resolved its properties.
type MemorySource struct {
	mapSource
}

// NewMemorySource returns an empty MemorySource.
func NewMemorySource() *MemorySource { return &MemorySource{} }

// Set sets one value by full Hystrix name.
func (m *MemorySource) Set(name, value string) {
	m.SetAll(map[string]string{name: value})
}

// SetAll sets several values with a single notification, so properties that must change
// together (metrics.rollingStats.timeInMilliseconds and numBuckets) are validated
// together.
func (m *MemorySource) SetAll(values map[string]string) {
	m.update(func(cur map[string]string) bool {
		changed := false
		for k, v := range values {
			if old, ok := cur[k]; !ok || old != v {
				cur[k] = v
				changed = true
			}
		}
		return changed
	})
}

// Delete removes a value; the property falls back to the next precedence level.
func (m *MemorySource) Delete(name string) {
	m.update(func(cur map[string]string) bool {
		_, ok := cur[name]
		delete(cur, name)
		return ok
	})
}
