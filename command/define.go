package command

import (
	"context"
	"sync"

	"github.com/reactivex/rxgo/v2"
)

// Kind is a command key defined once, with its Setter checked: New makes its commands
// without looking the key up again, and Execute runs executions of the key on Commands it
// reuses (kind_execute.go). Get one from Define; the zero Kind is not usable. A Kind is
// safe for concurrent use.
type Kind[T any] struct {
	ks       *keyState
	fallback func(ctx context.Context, err error) (T, error) // WithFallback's
	execs    *sync.Pool                                      // Commands Execute may reuse; shared by WithFallback's Kinds
}

// Define resolves the key s names in its runtime and returns the Kind of its commands, or
// the error of an invalid Setter (an unknown property, a value out of range, THREAD
// isolation for a stream...), naming the property and the value. As with New, the first
// Setter of a key decides; a key already defined differently keeps its first settings
// (logged once).
func Define[T any](s Setter) (*Kind[T], error) {
	ks, err := define(&s, false)
	if err != nil {
		return nil, err
	}
	return &Kind[T]{ks: ks, execs: &sync.Pool{}}, nil
}

// New returns a command of the kind running run (see command.New), with the Kind's
// fallback if it has one (WithFallback).
func (k *Kind[T]) New(run func(ctx context.Context) (T, error)) *Command[T] {
	c := newCommand(k.ks, run)
	c.fallback = k.fallback
	return c
}

// StreamKind is a stream command key defined once (see Kind).
type StreamKind[T any] struct{ ks *keyState }

// DefineStream is Define for a streaming command key.
func DefineStream[T any](s Setter) (*StreamKind[T], error) {
	ks, err := define(&s, true)
	if err != nil {
		return nil, err
	}
	return &StreamKind[T]{ks: ks}, nil
}

// New returns a stream command of the kind running construct (see command.NewStream).
func (k *StreamKind[T]) New(construct func(ctx context.Context) rxgo.Observable) *Stream[T] {
	return newStream[T](k.ks, construct)
}

// define resolves s's key and reports an invalid Setter; an invalid key is not kept, so a
// corrected Setter can define it later.
func define(s *Setter, stream bool) (*keyState, error) {
	rt := s.normalize()
	ks := rt.state(s, stream)
	if ks.err != nil {
		rt.dropInvalid(ks)
		return nil, &Error{Type: BadRequestException, CommandKey: s.CommandKey, Cause: ks.err}
	}
	return ks, nil
}
