package config

import (
	"fmt"
	"sync/atomic"
)

// Property is one typed configuration value that can change while the program runs.
//
// Get is the hot-path read: a single atomic pointer load (no locking, no map lookup, no
// string building, no allocation). A Store swaps in a new value whenever a source change
// resolves to a different valid value; readers see it on their next Get.
//
// Properties come from a Store (CommandProperties, ThreadPoolProperties,
// CollapserProperties) or from Fixed; the zero Property is not usable.
type Property[T any] struct {
	// v points to the current value. The pointee is never written: built-in defaults
	// and the few values of small types (bool, IsolationStrategy) are shared by every
	// key; any other value is allocated when it is first published.
	v   atomic.Pointer[T]
	key *keyState // the owning key; nil for Fixed
	m   *meta[T]  // shared by this property of every key
}

// meta is what a Property needs besides its value and its key. A Store's properties
// share one meta per property per scope; Fixed makes its own.
type meta[T any] struct {
	short  string // Hystrix short name; for Fixed the whole name
	format func(T) string
}

// Get returns the current value.
func (p *Property[T]) Get() T { return *p.v.Load() }

// Name returns the full Hystrix name, e.g.
// "hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds".
// It is built on each call (it is not for the hot path).
func (p *Property[T]) Name() string {
	if p.key == nil {
		return p.m.short
	}
	return p.key.name(p.m.short)
}

// String returns the current value the way Hystrix prints it (durations in the unit of
// the property name, e.g. "1000" for a timeoutInMilliseconds of one second).
func (p *Property[T]) String() string { return p.m.format(p.Get()) }

// Fixed returns a Property that always holds value. It is meant for tests and for code
// that needs a Property without a Store; String formats with fmt.Sprint.
func Fixed[T any](name string, value T) *Property[T] {
	p := &Property[T]{m: &meta[T]{short: name, format: func(v T) string { return fmt.Sprint(v) }}}
	p.v.Store(&value)
	return p
}
