package config

import (
	"errors"
	"fmt"
)

// Key is one property, declared once: its Hystrix short name, built-in default, codec
// and range, from which the Store resolves it for every key of its scope. O is the
// properties type of its scope (CommandProperties, ThreadPoolProperties or
// CollapserProperties) and T the type of its value. Every property has an exported Key
// (ExecutionTimeout, ThreadPoolCoreSize, CollapserTimerDelay, ...), so a misspelt name
// does not compile, and neither does a thread-pool property among command values:
//
//	config.Set(
//		config.ExecutionIsolationStrategy.Of(config.Semaphore),
//		config.ExecutionTimeout.Of(300*time.Millisecond),
//	)
//
// In reads the property of one key: config.ExecutionTimeout.In(props).Get(). The zero Key
// is not usable.
type Key[O scopeOwner, T comparable] struct{ d *desc[O, T] }

// scopeOwner is the properties type of a scope.
type scopeOwner interface {
	CommandProperties | ThreadPoolProperties | CollapserProperties
}

// key declares a property of scope sc with its Hystrix short name, built-in default,
// codec and per-value rule (nil: any parsable value).
func key[O scopeOwner, T comparable](sc *scope[O], short string, def T, c codec[T], valid func(T) error) Key[O, T] {
	d := &desc[O, T]{meta: meta[T]{short: short, format: c.format},
		parse: c.parse, valid: valid, values: c.values}
	d.def = d.intern(def, nil)
	sc.add(d)
	return Key[O, T]{d}
}

// In returns the property of the key that o holds the properties of: its Get is one
// atomic load, so a reader on a hot path keeps the Property rather than calling In each
// time.
func (k Key[O, T]) In(o *O) *Property[T] { return k.d.of(stateOf(o)) }

// stateOf returns the keyState of o.
func stateOf[O scopeOwner](o *O) *keyState {
	switch o := any(o).(type) {
	case *CommandProperties:
		return &o.k
	case *ThreadPoolProperties:
		return &o.k
	case *CollapserProperties:
		return &o.k
	}
	panic("config: unknown properties type")
}

// Name returns the Hystrix short name, e.g.
// "execution.isolation.thread.timeoutInMilliseconds".
func (k Key[O, T]) Name() string { return k.d.short }

// Of returns the entry that sets the property to v in code. Durations are written in Go
// syntax ("300ms"), which the string form accepts next to Hystrix's plain numbers.
func (k Key[O, T]) Of(v T) Entry[O] { return Entry[O]{name: k.d.short, value: fmt.Sprint(v)} }

// SetIn sets the property of key to v in src, a dynamic source (the name is
// hystrix.<scope>.<key>.<name>): it ranks above the value set in code, as every dynamic
// value of the key does, and applies to every Store using src when SetIn returns. v is
// written as Of writes it and checked first: a value the property refuses is a
// *PropertyError naming it (errors.Is ErrInvalidValue), and src is left as it was. An
// empty key is ErrEmptyKey, and the key "default" an error too: its name is the default
// level's (SetDefaultIn sets that). Otherwise the error is MemorySource.Set's: the
// entries of src that the Stores refuse now, nil if none.
//
//	config.ExecutionTimeout.SetIn(config.DefaultSource(), "GetUser", 300*time.Millisecond)
func (k Key[O, T]) SetIn(src *MemorySource, key string, v T) error {
	switch key {
	case "":
		return ErrEmptyKey
	case "default":
		return &PropertyError{Name: k.d.dflt, Value: fmt.Sprint(v), Err: errDefaultKey}
	}
	return k.set(src, k.d.prefix+key+"."+k.d.short, v)
}

// errDefaultKey is SetIn's error for the key "default".
var errDefaultKey = errors.New(`the key "default" names the default level of every key: use SetDefaultIn`)

// SetDefaultIn sets the default level of the property to v in src
// (hystrix.<scope>.default.<name>): every key without a value of its own, dynamic or
// set in code, takes it. Errors as for SetIn.
func (k Key[O, T]) SetDefaultIn(src *MemorySource, v T) error { return k.set(src, k.d.dflt, v) }

func (k Key[O, T]) set(src *MemorySource, name string, v T) error {
	raw := fmt.Sprint(v)
	if _, err := k.d.parseValid(raw); err != nil {
		return &PropertyError{Name: name, Value: raw, Err: err}
	}
	return src.Set(name, raw)
}

// Entry is one property of scope O set in code; Set gathers entries into Values[O].
type Entry[O scopeOwner] struct{ name, value string }

// Set returns the Values that hold entries (a later entry for a property wins): an
// Overrides for command Keys, a ThreadPoolOverrides for thread-pool Keys, a
// CollapserOverrides for collapser Keys. All entries are of one scope:
// Set(ExecutionTimeout.Of(d), ThreadPoolCoreSize.Of(4)) does not compile, and neither does
// thread-pool values where command values go. Values are validated where the Overrides are used (Store.Command,
// ValidateThreadPool, ...), like the string form.
func Set[O scopeOwner](entries ...Entry[O]) Values[O] {
	o := make(Values[O], len(entries))
	for _, e := range entries {
		o[e.name] = e.value
	}
	return o
}
