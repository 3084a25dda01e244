package command

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/config"
)

// Kind is a command key defined once, with its Setter checked: New makes its commands
// without looking the key up again, and ExecutePooled runs executions of the key on
// Commands it reuses (kind_execute.go). The commands New makes have Command's doors:
// under SEMAPHORE isolation Queue and Observe, like Execute, run the command before they
// return. Get a Kind from Define; the zero Kind is not usable. A Kind is safe for
// concurrent use and may be kept for good: after the runtime forgot its key (idle), its
// next command resolves the key again.
type Kind[T any] struct {
	key      *kindKey
	fallback func(ctx context.Context, err error) (T, error) // WithFallback's
	execs    *sync.Pool                                      // Commands ExecutePooled may reuse; shared by WithFallback's Kinds
}

// Define resolves the key s names in its runtime and returns the Kind of its commands, or
// the error of an invalid Setter (an unknown property, a value out of range, THREAD
// isolation for a stream...), naming the property and the value. A key is defined once:
// defining it again with the same settings (values compared parsed: "300" is "300ms")
// returns another Kind of it, with other settings (properties, group, thread-pool key,
// stream or not) an error listing them (errors.Is ErrRedefined), and the key keeps its
// first settings. When the runtime's config.Store is strict (config.Store.SetStrict), a
// key whose sources set a bad value for it is an invalid Setter too.
func Define[T any](s Setter) (*Kind[T], error) {
	key, err := defineKey(s, false)
	if err != nil {
		return nil, err
	}
	return &Kind[T]{key: key, execs: &sync.Pool{}}, nil
}

// New returns a command of the kind running run (see command.New), with the Kind's
// fallback if it has one (WithFallback).
func (k *Kind[T]) New(run func(ctx context.Context) (T, error)) *Command[T] {
	c := newCommand(k.key.state(), run)
	c.fallback = k.fallback
	return c
}

// StreamKind is a stream command key defined once (see Kind).
type StreamKind[T any] struct{ key *kindKey }

// DefineStream is Define for a streaming command key.
func DefineStream[T any](s Setter) (*StreamKind[T], error) {
	key, err := defineKey(s, true)
	if err != nil {
		return nil, err
	}
	return &StreamKind[T]{key: key}, nil
}

// New returns a stream command of the kind running construct (see command.NewStream).
func (k *StreamKind[T]) New(construct func(ctx context.Context) rxgo.Observable) *Stream[T] {
	return newStream[T](k.key.state(), construct)
}

// kindKey is the key of a Kind (shared with the Kinds WithFallback makes of it): the
// Setter that defined it and the key's state, resolved again, as command.New resolves a
// key, once the runtime forgot the key (its metrics evicted for idleness), so that a
// Kind held for good runs on the key's live metrics, breaker and properties.
type kindKey struct {
	s      Setter
	stream bool
	ks     atomic.Pointer[keyState]
}

func defineKey(s Setter, stream bool) (*kindKey, error) {
	ks, err := define(&s, stream)
	if err != nil {
		return nil, err
	}
	k := &kindKey{s: s, stream: stream}
	k.ks.Store(ks)
	return k, nil
}

// state returns the key's state: two atomic loads while the runtime keeps the key.
func (k *kindKey) state() *keyState {
	ks := k.ks.Load()
	if !ks.forgotten.Load() {
		return ks
	}
	s := k.s
	now := s.normalize().state(&s, k.stream)
	k.ks.CompareAndSwap(ks, now)
	return now
}

// ErrRedefined matches (errors.Is) the error of Define and DefineStream for a key
// defined before with other settings.
var ErrRedefined = errors.New("command: the key is defined already with other settings")

// define resolves s's key and reports an invalid Setter, or one that differs from the
// key's first; an invalid key is not kept, so a corrected Setter can define it later.
func define(s *Setter, stream bool) (*keyState, error) {
	rt := s.normalize()
	ks := rt.lookup(s.CommandKey)
	if ks == nil || ks.err != nil {
		ks = rt.state(s, stream)
	}
	if ks.err != nil {
		rt.dropInvalid(ks)
		return nil, &Error{Type: BadRequestException, CommandKey: s.CommandKey, Cause: ks.err}
	}
	if diffs := ks.redefinition(s, stream); len(diffs) > 0 {
		return nil, &Error{Type: BadRequestException, CommandKey: s.CommandKey,
			Cause: fmt.Errorf("%w: %v", ErrRedefined, diffs)}
	}
	return ks, nil
}

// redefinition lists how s, defining the key again, differs from the settings the key
// has.
func (ks *keyState) redefinition(s *Setter, stream bool) []config.Difference {
	later := s.Properties
	if o, err := streamOverrides(later); stream && err == nil {
		later = o
	}
	diffs := append(ks.props.InCode().Diff(later), ks.poolProps.Diff(s.ThreadPoolProperties)...)
	for _, d := range []config.Difference{
		{Name: "GroupKey", First: ks.info.GroupKey, Second: s.GroupKey},
		{Name: "ThreadPoolKey", First: ks.poolKey, Second: s.ThreadPoolKey},
		{Name: "stream", First: strconv.FormatBool(ks.stream), Second: strconv.FormatBool(stream)},
	} {
		if d.First != d.Second {
			diffs = append(diffs, d)
		}
	}
	return diffs
}
