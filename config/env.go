package config

import (
	"os"
	"strings"
)

// EnvSource is a Source over the process environment, read once when it is made (it
// never changes, so it never notifies).
//
// A property is found under its exact dotted name if the environment has one (possible
// with env(1): env 'hystrix.command.default.fallback.enabled=false' ./app), else under
// EnvName(name): upper case, every character other than A-Z and 0-9 replaced by '_':
//
//	hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds
//	HYSTRIX_COMMAND_GETUSER_EXECUTION_ISOLATION_THREAD_TIMEOUTINMILLISECONDS
//
// The mapping is one-way: keys differing only in case or punctuation ("get-user",
// "GET_USER") share one variable.
type EnvSource struct {
	values map[string]string
}

// NewEnvSource snapshots os.Environ().
func NewEnvSource() *EnvSource {
	env := os.Environ()
	s := &EnvSource{values: make(map[string]string, len(env))}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			s.values[k] = v
		}
	}
	return s
}

// Get looks name up as is, then as EnvName(name).
func (s *EnvSource) Get(name string) (string, bool) {
	if v, ok := s.values[name]; ok {
		return v, true
	}
	v, ok := s.values[EnvName(name)]
	return v, ok
}

// Subscribe returns a no-op cancel: the snapshot never changes.
func (s *EnvSource) Subscribe(func()) (cancel func()) { return func() {} }

// EnvName returns the environment variable name for a property name (see EnvSource).
func EnvName(property string) string {
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
