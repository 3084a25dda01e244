package intercept

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/command"
)

// Kinds is an interceptor's command.Kind per command key: a key is defined
// (command.Define) on its first call and its later calls are commands of that Kind, so
// that no call looks its Setter up and compares it with the key's again (what command.New
// does). The zero Kinds is ready; every call must pass the same Setter but for its
// CommandKey (Base's).
//
// A key whose Define fails takes command.New on every call, as before Kinds: an invalid
// Setter then fails each call with the BAD_REQUEST_EXCEPTION, counted and logged, that
// command.New's Execute gives, and a key the application defined already with other
// settings (command.ErrRedefined) runs on the application's settings, the difference
// logged once, instead of failing.
//
// The keys are as many as the Key function names: name keys after hosts, routes or
// methods, never after IDs. A Kind outlives its key's eviction for idleness (it resolves
// the key again), so nothing here is dropped.
type Kinds[T any] struct {
	kinds   sync.Map     // command key -> *command.Kind[T]; a nil Kind: the key's calls take command.New
	defines atomic.Int64 // Define calls, for tests
}

// New returns the command of a call of s.CommandKey running run: a command of the key's
// Kind, defined on its first call, or command.New(s, run) for a key Define refused.
func (k *Kinds[T]) New(s command.Setter, run func(ctx context.Context) (T, error)) *command.Command[T] {
	if s.CommandKey == "" {
		s.CommandKey = s.GroupKey // as the command package names it
	}
	v, ok := k.kinds.Load(s.CommandKey)
	if !ok {
		v = k.define(s)
	}
	if kind := v.(*command.Kind[T]); kind != nil {
		return kind.New(run)
	}
	return command.New(s, run)
}

// Kind returns the Kind the calls of key run on, or nil for a key that has not been
// called or whose calls take command.New.
func (k *Kinds[T]) Kind(key string) *command.Kind[T] {
	if v, ok := k.kinds.Load(key); ok {
		return v.(*command.Kind[T])
	}
	return nil
}

// Defines returns how many times a key was defined (command.Define called): once per key,
// whatever the number of calls.
func (k *Kinds[T]) Defines() int64 { return k.defines.Load() }

// define defines s's key and keeps its Kind, or nil if Define refused s; a call that
// defined the key meanwhile wins.
func (k *Kinds[T]) define(s command.Setter) any {
	k.defines.Add(1)
	kind, err := command.Define[T](s)
	if err != nil {
		kind = nil
	}
	v, _ := k.kinds.LoadOrStore(s.CommandKey, kind)
	return v
}
