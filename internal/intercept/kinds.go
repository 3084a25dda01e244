package intercept

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Kinds is an interceptor's command.Kind per command key: a key is defined
// (command.Define) on its first call and its later calls are commands of that Kind, so
// that no call looks its Setter up and compares it with the key's again (what command.New
// does). The zero Kinds is ready; every call must pass the same Setter but for its
// CommandKey (Base's), and a Kinds serves one runtime, its first call's.
//
// A key whose Define fails takes command.New on every call, as before Kinds: an invalid
// Setter then fails each call with the BAD_REQUEST_EXCEPTION, counted and logged, that
// command.New's Execute gives, and a key the application defined already with other
// settings (command.ErrRedefined) runs on the application's settings, the difference
// logged once, instead of failing.
//
// The keys are as many as the Key function names, unbounded as the runtime's own: a key
// the metrics registry evicts for idleness is dropped here too (its Kind holds the state
// the runtime forgets, whose breaker no longer learns the key's health), and defined
// afresh on its next call. A call in the instant between the eviction and the runtime
// forgetting the key may define it on the state being forgotten: that Kind lasts until
// the key is evicted again.
type Kinds[T any] struct {
	t atomic.Pointer[kindTable[T]]
}

// kindTable is the Kinds of one interceptor, apart from it so that the eviction listener
// can hold it weakly (an interceptor dropped by the application is not kept by the
// runtime's listeners).
type kindTable[T any] struct {
	kinds   sync.Map     // command key -> *command.Kind[T]; a nil Kind: the key's calls take command.New
	defines atomic.Int64 // Define calls, for tests
}

// New returns the command of a call of s.CommandKey running run: a command of the key's
// Kind, defined on its first call, or command.New(s, run) for a key Define refused.
func (k *Kinds[T]) New(s command.Setter, run func(ctx context.Context) (T, error)) *command.Command[T] {
	if s.CommandKey == "" {
		s.CommandKey = s.GroupKey // as the command package names it: the key eviction reports
	}
	t := k.t.Load()
	if t == nil {
		t = k.table(s.Runtime)
	}
	v, ok := t.kinds.Load(s.CommandKey)
	if !ok {
		v = t.define(s)
	}
	if kind := v.(*command.Kind[T]); kind != nil {
		return kind.New(run)
	}
	return command.New(s, run)
}

// Kind returns the Kind the calls of key run on, or nil for a key that has not been
// called or whose calls take command.New.
func (k *Kinds[T]) Kind(key string) *command.Kind[T] {
	if t := k.t.Load(); t != nil {
		if v, ok := t.kinds.Load(key); ok {
			return v.(*command.Kind[T])
		}
	}
	return nil
}

// Defines returns how many times a key was defined (command.Define called): once per key
// and per eviction, whatever the number of calls.
func (k *Kinds[T]) Defines() int64 {
	if t := k.t.Load(); t != nil {
		return t.defines.Load()
	}
	return 0
}

// table makes the Kinds' table on the first call and has rt's metrics registry (the
// default runtime's for nil) drop an evicted key from it, for as long as the table lives.
func (k *Kinds[T]) table(rt *command.Runtime) *kindTable[T] {
	t := &kindTable[T]{}
	if !k.t.CompareAndSwap(nil, t) {
		return k.t.Load()
	}
	if rt == nil {
		rt = command.Default()
	}
	w := weak.Make(t)
	cancel := rt.Metrics().OnCommandEvicted(func(m *metrics.CommandMetrics) {
		if t := w.Value(); t != nil {
			t.kinds.Delete(m.Key())
		}
	})
	runtime.AddCleanup(t, func(cancel func()) { cancel() }, cancel)
	return t
}

// define defines s's key and keeps its Kind, or nil if Define refused s; a call that
// defined the key meanwhile wins.
func (t *kindTable[T]) define(s command.Setter) any {
	t.defines.Add(1)
	kind, err := command.Define[T](s)
	if err != nil {
		kind = nil
	}
	v, _ := t.kinds.LoadOrStore(s.CommandKey, kind)
	return v
}
