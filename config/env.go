package config

import (
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"os"
	"slices"
	"strings"
)

// envSource is NewEnvSource's Source.
type envSource struct {
	values map[string]string
}

// NewEnvSource returns a Source over the process environment, snapshotted from
// os.Environ() now (it never changes, so it never notifies).
//
// A property is found under its exact dotted name if the environment has one (possible
// with env(1): env 'hystrix.command.default.fallback.enabled=false' ./app), else under
// the variable name: upper case, every character other than A-Z and 0-9 replaced by '_':
//
//	hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds
//	HYSTRIX_COMMAND_GETUSER_EXECUTION_ISOLATION_THREAD_TIMEOUTINMILLISECONDS
//
// The mapping is one-way: keys differing only in case, punctuation or non-ASCII letters
// ("get-user" and "GET_USER", "Größe" and "Grüße") share one variable, and so do a key
// "Default" and the default level. A Store holding two such keys refuses the shared
// variables for both (a *PropertyError naming both, errors.Is ErrAmbiguousEnv); each
// still reads its exact dotted name.
func NewEnvSource() Source { return newEnvSource() }

func newEnvSource() *envSource {
	env := os.Environ()
	s := &envSource{values: make(map[string]string, len(env))}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.values[k] = v
		}
	}
	return s
}

// Get looks name up as is, then as envName(name).
func (s *envSource) Get(name string) (string, bool) {
	if v, ok := s.values[name]; ok {
		return v, true
	}
	v, ok := s.values[envName(name)]
	return v, ok
}

// Names returns the names of every variable.
func (s *envSource) Names() []string { return slices.Collect(maps.Keys(s.values)) }

// exact looks name up only as is.
func (s *envSource) exact(name string) (string, bool) {
	v, ok := s.values[name]
	return v, ok
}

// Subscribe returns a no-op cancel: the snapshot never changes.
func (s *envSource) Subscribe(func() error) (cancel func()) { return func() {} }

// envName returns the environment variable name for a property name (see envSource).
func envName(property string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, property)
}

// ErrAmbiguousEnv matches (errors.Is) a *PropertyError about an environment variable that
// names the properties of two held keys (see NewEnvSource).
var ErrAmbiguousEnv = errors.New("ambiguous environment variable")

// pairEnvName pairs k with a held key of its scope whose names share the environment
// variables of k's names (or with the default level), so that both refuse them (see
// lookupUnmapped, ambiguous). It returns the new errors of a held key that became
// ambiguous. s.mu is held; k is not resolved yet.
func (s *Store) pairEnvName(k keyed) []*PropertyError {
	st := k.state()
	env := envName(st.name(""))
	if st.key != "default" && env == namesOf(st.scope).envPrefix+"DEFAULT_" {
		st.envTwin = "default"
		return nil
	}
	sum := maphash.String(s.envSeed, env)
	h, ok := s.envKeys[sum]
	if !ok {
		s.envKeys[sum] = k
		return nil
	}
	hs := h.state()
	if envName(hs.name("")) != env {
		return nil // a hash collision, not shared names
	}
	st.envTwin = hs.key
	if hs.envTwin != "" {
		return nil
	}
	hs.envTwin = st.key
	return s.apply(h)
}

// unpairEnvName undoes pairEnvName for k, which is being forgotten: a key left alone
// with its variables reads them again. It returns that key's new errors. s.mu is held.
func (s *Store) unpairEnvName(k keyed) []*PropertyError {
	st := k.state()
	if st.envTwin == "default" {
		return nil
	}
	env := envName(st.name(""))
	var others []keyed
	if st.envTwin != "" {
		for _, o := range s.sets {
			if o != nil && o != k && o.state().scope == st.scope && o.state().envTwin != "default" &&
				envName(o.state().name("")) == env {
				others = append(others, o)
			}
		}
	}
	if sum := maphash.String(s.envSeed, env); s.envKeys[sum] == k {
		delete(s.envKeys, sum)
		if len(others) > 0 {
			s.envKeys[sum] = others[0]
		}
	}
	switch len(others) {
	case 0:
		return nil
	case 1:
		others[0].state().envTwin = ""
		return s.apply(others[0])
	}
	for _, o := range others {
		if o.state().envTwin == st.key {
			o.state().envTwin = others[0].state().key
			if o == others[0] {
				o.state().envTwin = others[1].state().key
			}
		}
	}
	return nil
}

// lookupUnmapped is lookup for a paired key: its own names (those starting with own)
// are taken from an envSource only as spelled, not from the shared variables.
func (s *Store) lookupUnmapped(own string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		for _, src := range s.sources {
			get := src.Get
			if env, ok := src.Source.(*envSource); ok && strings.HasPrefix(name, own) {
				get = env.exact
			}
			if v, ok := get(name); ok {
				return v, true
			}
		}
		return "", false
	}
}

// ambiguous returns an error for every own name of a paired key that an envSource has
// only under its shared variable.
func (s *Store) ambiguous(st *keyState) []*PropertyError {
	var errs []*PropertyError
	for _, src := range s.sources {
		env, ok := src.Source.(*envSource)
		if !ok {
			continue
		}
		for _, short := range namesOf(st.scope).shorts {
			name := st.name(short)
			if _, ok := env.exact(name); ok {
				continue
			}
			if v, ok := env.values[envName(name)]; ok {
				errs = append(errs, &PropertyError{Name: name, Value: v, Err: fmt.Errorf("%w: %s also names hystrix.%s.%s.%s; refused for both",
					ErrAmbiguousEnv, envName(name), st.scope, st.envTwin, short)})
			}
		}
	}
	return errs
}
