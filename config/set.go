package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// field is one property of a propSet, seen without its type. stage/useDefault/revert
// prepare a candidate value; commit publishes it to the Property. Everything except
// value runs under the owning Store's lock.
type field interface {
	shortName() string
	fullName() string
	stage(raw string) error
	useDefault()
	revert()
	commit()
	value() string
}

// slot is the typed field behind one Property.
type slot[T comparable] struct {
	prop  *Property[T]
	short string
	def   T
	codec codec[T]
	valid func(T) error
	next  T // candidate value
}

func (s *slot[T]) shortName() string { return s.short }
func (s *slot[T]) fullName() string  { return s.prop.name }
func (s *slot[T]) useDefault()       { s.next = s.def }
func (s *slot[T]) revert()           { s.next = s.prop.Get() }
func (s *slot[T]) value() string     { return s.prop.String() }

// changed reports whether the candidate differs from the published value (from the
// built-in default before anything is published).
func (s *slot[T]) changed() bool {
	if old := s.prop.v.Load(); old != nil {
		return *old != s.next
	}
	return s.next != s.def
}

func (s *slot[T]) stage(raw string) error {
	v, err := s.codec.parse(raw)
	if err == nil && s.valid != nil {
		err = s.valid(v)
	}
	if err != nil {
		return err
	}
	s.next = v
	return nil
}

// commit stores the candidate; an unchanged value is not stored again.
func (s *slot[T]) commit() {
	if old := s.prop.v.Load(); old == nil || *old != s.next {
		v := s.next
		s.prop.v.Store(&v)
	}
}

// check is a cross-property rule over candidate values. When it fails, its fields keep
// their previous values. The fields of different checks of one set never overlap.
type check struct {
	fields []field
	run    func() *PropertyError
}

// propSet is every property of one key of one scope ("command", "threadpool",
// "collapser"): the fields, the cross-property checks and the values set in code.
type propSet struct {
	scope    string
	key      string
	fields   []field
	byName   map[string]field
	checks   []check
	inCode   Overrides
	reported map[string]string // full name -> bad value already reported
}

func newPropSet(scope, key string) *propSet {
	return &propSet{scope: scope, key: key, byName: map[string]field{}}
}

// name returns hystrix.<scope>.<key>.<short>.
func (s *propSet) name(key, short string) string {
	return "hystrix." + s.scope + "." + key + "." + short
}

// add declares a property with its Hystrix short name, built-in default, codec and
// per-value rule (nil: any parsable value).
func add[T comparable](s *propSet, short string, def T, c codec[T], valid func(T) error) *slot[T] {
	sl := &slot[T]{
		prop:  &Property[T]{name: s.name(s.key, short), format: c.format},
		short: short, def: def, codec: c, valid: valid,
	}
	s.fields = append(s.fields, sl)
	s.byName[short] = sl
	return sl
}

// init validates the values set in code over the built-in defaults and publishes that
// baseline. Any unknown name, bad value or failed cross-property rule is an error and
// nothing is published.
func (s *propSet) init(inCode Overrides) error {
	var errs []error
	for _, n := range slices.Sorted(maps.Keys(inCode)) {
		if _, ok := s.byName[n]; !ok {
			errs = append(errs, &PropertyError{Name: s.name(s.key, n), Value: inCode[n],
				InCode: true, Err: ErrUnknownProperty})
		}
	}
	for _, f := range s.fields {
		f.useDefault()
		raw, ok := inCode[f.shortName()]
		if !ok {
			continue
		}
		if err := f.stage(raw); err != nil {
			errs = append(errs, &PropertyError{Name: f.fullName(), Value: raw, InCode: true, Err: err})
		}
	}
	if len(errs) == 0 {
		for _, c := range s.checks {
			if e := c.run(); e != nil {
				e.InCode = true
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	s.inCode = maps.Clone(inCode)
	for _, f := range s.fields {
		f.commit()
	}
	return nil
}

// refresh re-resolves every field against lookup (the dynamic sources) and publishes
// the values that changed. A bad value leaves its property at the previous value; it is
// returned once (until it changes or goes away), so a lingering bad value is not
// reported again on every unrelated change.
func (s *propSet) refresh(lookup func(string) (string, bool)) []*PropertyError {
	var errs []*PropertyError
	for _, f := range s.fields {
		f.revert()
		raw, from, inCode, ok := s.resolve(f.shortName(), lookup)
		if !ok {
			f.useDefault()
			continue
		}
		if err := f.stage(raw); err != nil {
			errs = append(errs, &PropertyError{Name: from, Value: raw, InCode: inCode, Err: err})
		}
	}
	for _, c := range s.checks {
		if e := c.run(); e != nil {
			for _, f := range c.fields {
				f.revert()
			}
			errs = append(errs, e)
		}
	}
	for _, f := range s.fields {
		f.commit()
	}
	return s.unreported(errs)
}

// resolve finds the raw value by precedence: hystrix.<scope>.<key>.X, the value set in
// code, hystrix.<scope>.default.X. ok is false when none is set (built-in default).
func (s *propSet) resolve(short string, lookup func(string) (string, bool)) (raw, from string, inCode, ok bool) {
	from = s.name(s.key, short)
	if raw, ok = lookup(from); ok {
		return raw, from, false, true
	}
	if raw, ok = s.inCode[short]; ok {
		return raw, from, true, true
	}
	from = s.name("default", short)
	if raw, ok = lookup(from); ok {
		return raw, from, false, true
	}
	return "", "", false, false
}

// unreported drops errors already reported with the same value and remembers the rest.
func (s *propSet) unreported(errs []*PropertyError) []*PropertyError {
	seen := make(map[string]string, len(errs))
	var out []*PropertyError
	for _, e := range errs {
		seen[e.Name] = e.Value
		if v, ok := s.reported[e.Name]; !ok || v != e.Value {
			out = append(out, e)
		}
	}
	s.reported = seen
	return out
}

// settings lists every field with its full name and current value, in declaration order.
func (s *propSet) settings() []Setting {
	out := make([]Setting, len(s.fields))
	for i, f := range s.fields {
		out[i] = Setting{Name: f.shortName(), FullName: f.fullName(), Value: f.value()}
	}
	return out
}

// divisible requires the window (in ms) to be a multiple of the bucket count. The error
// is about the bucket count when only that changed, else about the window; its message
// names both.
func divisible(window *slot[time.Duration], buckets *slot[int]) check {
	return check{fields: []field{window, buckets}, run: func() *PropertyError {
		ms := int64(window.next / time.Millisecond)
		if ms%int64(buckets.next) == 0 {
			return nil
		}
		if buckets.changed() && !window.changed() {
			return &PropertyError{Name: buckets.fullName(), Value: intCodec.format(buckets.next),
				Err: fmt.Errorf("does not divide %s=%d", window.fullName(), ms)}
		}
		return &PropertyError{Name: window.fullName(), Value: window.codec.format(window.next),
			Err: fmt.Errorf("not divisible by %s=%d", buckets.fullName(), buckets.next)}
	}}
}

// Setting is one property of one key with its current value, for dashboards and the
// configuration stream.
type Setting struct {
	// Name is the Hystrix short name, e.g. "execution.isolation.strategy".
	Name string
	// FullName is the Hystrix name for this key, e.g.
	// "hystrix.command.GetUser.execution.isolation.strategy".
	FullName string
	// Value is the current value as Hystrix prints it ("THREAD", "1000", "true").
	Value string
}
