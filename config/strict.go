package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrUnknownKey matches (errors.Is) a *PropertyError about a name of a source for a key
// the Store does not hold: hystrix.command.GetUsr.… where no command GetUsr is defined (a
// misspelt key, or a key not defined yet). Its Hint names the nearest held key.
var ErrUnknownKey = errors.New("config: no such key")

// SetStrict makes the Store refuse what it cannot apply instead of applying the rest and
// reporting it (the default). When strict, AddSource does not add a source any entry of
// which is refused, and Command, ThreadPool and Collapser do not create a key whose
// sources set a bad value for it (the key can be defined once the value is mended): both
// return the refused entries as a *RefusedError (a command of such a key fails as one
// of an invalid Setter, command.BadRequestException). A change of a source already added
// (MemorySource.Set, FileSource.Reload, an etcd watch) is applied as always: a running
// service keeps its last good values. A Store made by NewDefaultStore is strict when
// Default is.
func (s *Store) SetStrict(on bool) { s.strict.Store(on) }

// strictNow reports whether s or the Store it follows is strict.
func (s *Store) strictNow() bool {
	return s.strict.Load() || s.parent != nil && s.parent.strictNow()
}

// Check returns every entry of the Store's sources that it cannot apply now, one
// *RefusedError per source, joined (nil if none): values of held keys that do not parse,
// are out of range or break a cross-property rule, names that name no property, and
// names of keys the Store does not hold (ErrUnknownKey: a misspelt key, with the nearest
// held key as a hint). Call it once the keys are defined, at the end of start-up or in a
// test: a key defined later (hystrixhttp's keys per host, say) is unknown until then.
// Check reports; it changes nothing.
func (s *Store) Check() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var errs []error
	for _, src := range s.sources {
		entries := slices.Collect(maps.Values(src.unknown))
		for _, by := range s.refused {
			if e := by.err; !e.InCode && s.winner(e.Name) == src {
				entries = append(entries, e)
			}
		}
		entries = append(entries, s.strays(src)...)
		if len(entries) > 0 {
			slices.SortFunc(entries, func(a, b *PropertyError) int { return strings.Compare(a.Name, b.Name) })
			errs = append(errs, &RefusedError{Source: labelOf(src.Source), Entries: entries})
		}
	}
	return errors.Join(errs...)
}

// winner returns the first source that has name, nil if none. s.mu is held.
func (s *Store) winner(name string) *source {
	for _, src := range s.sources {
		if _, ok := src.Get(name); ok {
			return src
		}
	}
	return nil
}

// strays returns the names of src for keys the Store does not hold (ErrUnknownKey).
// s.mu is held.
func (s *Store) strays(src *source) []*PropertyError {
	var out []*PropertyError
	for _, name := range src.Names() {
		if n, key, short, ok := splitName(name); ok && key != "default" && s.held(n.name, key) == nil {
			out = append(out, s.stray(src, n, key, short, name))
		}
	}
	return out
}

// stray returns the error of name, a property of key that the Store does not hold.
func (s *Store) stray(src *source, n *names, key, short, name string) *PropertyError {
	v, _ := src.Get(name)
	hint := "no " + n.label + " key " + key + " is defined (yet)"
	if best, _, ok := closest(key, s.heldKeys(n.name)); ok {
		hint += "; did you mean " + n.prefix + best + "." + short + "?"
	}
	return &PropertyError{Name: name, Value: v, Err: ErrUnknownKey, Hint: hint}
}

// nearMisses returns the names of the sources for keys the Store does not hold that are
// spelt close to k's key (nearKey), not reported before: a key misspelt in a file shows
// up when the key it misspells is defined. It reads the sources' index of keys, so it
// costs one nearKey per key the sources name. s.mu is held.
func (s *Store) nearMisses(k *keyState) []*PropertyError {
	var out []*PropertyError
	n := namesOf(k.scope)
	for _, src := range s.sources {
		for sk, names := range src.byKey {
			if sk.scope != k.scope || sk.key == "default" || !nearKey(sk.key, k.key) || s.held(sk.scope, sk.key) != nil {
				continue
			}
			for name, short := range names {
				if _, seen := s.warned[name]; !seen {
					s.warned[name] = struct{}{}
					out = append(out, s.stray(src, n, sk.key, short, name))
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b *PropertyError) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// index keeps src.byKey current for name, which src has or not. s.mu is held.
func (src *source) index(name string, has bool) {
	n, key, short, ok := splitName(name)
	if !ok {
		return
	}
	sk := scopedKey{n.name, key}
	if !has {
		delete(src.byKey[sk], name)
		if len(src.byKey[sk]) == 0 {
			delete(src.byKey, sk)
		}
		return
	}
	if src.byKey == nil {
		src.byKey = map[scopedKey]map[string]string{}
	}
	if src.byKey[sk] == nil {
		src.byKey[sk] = map[string]string{}
	}
	src.byKey[sk][name] = short
}

// nearKey reports whether key a may be b misspelt: at most one byte inserted, deleted or
// replaced, ignoring ASCII letter case (keys are names a program writes, so a farther one
// is another key). It costs one pass and no allocation: a key's creation runs it on
// every name of the sources.
func nearKey(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && lower(a[i]) == lower(b[i]) {
		i++
	}
	if i == len(b) {
		return true
	}
	skip := 0 // a has one more byte: skip it; same length: skip the differing byte of both
	if len(a) == len(b) {
		skip = 1
	}
	for j := i + 1; j < len(a); j++ {
		if lower(a[j]) != lower(b[j-1+skip]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// splitName splits hystrix.<scope>.<KEY>.<short> (a property of the scope), preferring
// the longest short name where a key holds dots.
func splitName(name string) (n *names, key, short string, ok bool) {
	for _, n := range allNames {
		rest, found := strings.CutPrefix(name, n.prefix)
		if !found {
			continue
		}
		for i := max(1, len(rest)-n.longest-1); i < len(rest); i++ {
			if rest[i] == '.' && n.has(rest[i+1:]) {
				return n, rest[:i], rest[i+1:], true
			}
		}
	}
	return nil, "", "", false
}

// heldKeys returns the held keys of scope. s.mu is held.
func (s *Store) heldKeys(scope string) []string {
	switch scope {
	case commandScope.name:
		return slices.Collect(maps.Keys(s.commands))
	case threadPoolScope.name:
		return slices.Collect(maps.Keys(s.pools))
	}
	return slices.Collect(maps.Keys(s.collapsers))
}

// refusedFor returns the *RefusedError of the entries of src that errs refuses (a
// source's values may be refused by a Store for a name another source also has), nil if
// none.
func refusedFor(src Source, err error) error {
	var own []*PropertyError
	seen := map[string]bool{}
	for _, pe := range propertyErrors(err) {
		if v, ok := src.Get(pe.Name); !ok || v != pe.Value || pe.InCode || seen[pe.Error()] {
			continue
		}
		seen[pe.Error()] = true
		own = append(own, pe)
	}
	if len(own) == 0 {
		return nil
	}
	slices.SortStableFunc(own, func(a, b *PropertyError) int { return strings.Compare(a.Name, b.Name) })
	return &RefusedError{Source: labelOf(src), Entries: own}
}

// labelOf names src in a *RefusedError: a file's path, "memory", "environment".
func labelOf(src Source) string {
	switch x := src.(type) {
	case interface{ sourceLabel() string }:
		return x.sourceLabel()
	case *envSource:
		return "environment"
	}
	return fmt.Sprintf("%T", src)
}

func (m *mapSource) sourceLabel() string { return m.label }
