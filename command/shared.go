package command

import (
	"io"
	"sync"
)

// sharedState is what stages share between the keys of a runtime (the budgets of extra
// attempts, adaptive limit groups, rate limiters), each under a key of the stage's own
// type: the runtime holds it without knowing any stage. Values are made on first use
// and looked up only when a key's properties change, not per execution.
type sharedState struct {
	mu sync.Mutex
	m  map[any]any
}

// sharedOf returns the runtime's value under k (a comparable value of the stage's own
// type), made by mk on first use; an error of mk stores nothing. mk runs without the lock
// (a rate limiter's factory may dial a server): of two made at once the first stored wins
// and the other, if an io.Closer, is closed.
func sharedOf[V any](r *Runtime, k any, mk func() (V, error)) (V, error) {
	s := &r.shared
	s.mu.Lock()
	v, ok := s.m[k]
	s.mu.Unlock()
	if ok {
		return v.(V), nil
	}
	made, err := mk()
	if err != nil {
		return made, err
	}
	s.mu.Lock()
	if v, ok := s.m[k]; ok {
		s.mu.Unlock()
		if c, ok := any(made).(io.Closer); ok {
			_ = c.Close()
		}
		return v.(V), nil
	}
	if s.m == nil {
		s.m = map[any]any{}
	}
	s.m[k] = made
	s.mu.Unlock()
	return made, nil
}

// forgetShared drops the value under k (a key's own, when the key is forgotten).
func (r *Runtime) forgetShared(k any) {
	r.shared.mu.Lock()
	defer r.shared.mu.Unlock()
	delete(r.shared.m, k)
}

// close closes the values that are io.Closers (a rate limiter's connection) and drops all.
func (s *sharedState) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.m {
		if c, ok := v.(io.Closer); ok {
			_ = c.Close()
		}
	}
	s.m = nil
}
