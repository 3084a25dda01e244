package config

import "fmt"

// Key is the typed name of one property: O is the properties type of its scope
// (CommandProperties, ThreadPoolProperties or CollapserProperties) and T the type of its
// value. Every property has an exported Key (ExecutionTimeout, ThreadPoolCoreSize,
// CollapserTimerDelay, ...), so a misspelt name does not compile, and neither does a
// thread-pool property among command values:
//
//	config.Set(
//		config.ExecutionIsolationStrategy.Of(config.Semaphore),
//		config.ExecutionTimeout.Of(300*time.Millisecond),
//	)
//
// The zero Key is not usable.
type Key[O scopeOwner, T comparable] struct{ d *desc[O, T] }

// scopeOwner is the properties type of a scope.
type scopeOwner interface {
	CommandProperties | ThreadPoolProperties | CollapserProperties
}

// key declares the Key of a property with its Hystrix short name, built-in default,
// codec, per-value rule (nil: any parsable value) and field of the owner.
func key[O scopeOwner, T comparable](short string, def T, c codec[T], valid func(T) error,
	f func(*O) **Property[T]) Key[O, T] {
	d := &desc[O, T]{meta: meta[T]{short: short, format: c.format},
		parse: c.parse, valid: valid, values: c.values, field: f}
	d.def = d.intern(def, nil)
	return Key[O, T]{d}
}

// Name returns the Hystrix short name, e.g.
// "execution.isolation.thread.timeoutInMilliseconds".
func (k Key[O, T]) Name() string { return k.d.short }

// Of returns the entry that sets the property to v in code. Durations are written in Go
// syntax ("300ms"), which the string form accepts next to Hystrix's plain numbers.
func (k Key[O, T]) Of(v T) Entry[O] { return Entry[O]{name: k.d.short, value: fmt.Sprint(v)} }

// Entry is one property of scope O set in code; Set gathers entries into Overrides.
type Entry[O scopeOwner] struct{ name, value string }

// Set returns the Overrides that hold entries (a later entry for a property wins). All
// entries are of one scope: Set(ExecutionTimeout.Of(d), ThreadPoolCoreSize.Of(4)) does
// not compile. Values are validated where the Overrides are used (Store.Command,
// ValidateCommand, ...), like the string form.
func Set[O scopeOwner](entries ...Entry[O]) Overrides {
	o := make(Overrides, len(entries))
	for _, e := range entries {
		o[e.name] = e.value
	}
	return o
}
