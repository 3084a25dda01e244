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
	v      atomic.Pointer[T]
	name   string
	format func(T) string
}

// Get returns the current value.
func (p *Property[T]) Get() T { return *p.v.Load() }

// Name returns the full Hystrix name, e.g.
// "hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds".
func (p *Property[T]) Name() string { return p.name }

// String returns the current value the way Hystrix prints it (durations in the unit of
// the property name, e.g. "1000" for a timeoutInMilliseconds of one second).
func (p *Property[T]) String() string { return p.format(p.Get()) }

// Fixed returns a Property that always holds value. It is meant for tests and for code
// that needs a Property without a Store; String formats with fmt.Sprint.
func Fixed[T any](name string, value T) *Property[T] {
	p := &Property[T]{name: name, format: func(v T) string { return fmt.Sprint(v) }}
	p.v.Store(&value)
	return p
}
