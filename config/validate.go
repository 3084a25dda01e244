package config

import (
	"maps"
	"slices"
)

// ValidateThreadPool checks the values set in code for a thread-pool key the way
// Store.ThreadPool does when it creates the key, without creating it: every name a
// thread-pool property, every value parsable and in range, and the cross-property rules
// over the built-in defaults. The error joins one *PropertyError per problem, each naming
// the property and the value; an unknown name comes with a Hint (the closest known name,
// or the scope it belongs to). It reads no source and keeps nothing.
func ValidateThreadPool(key string, inCode ThreadPoolOverrides) error {
	return threadPoolScope.validate(key, inCode)
}

func (sc *scope[O]) validate(key string, inCode map[string]string) error {
	if key == "" {
		return ErrEmptyKey
	}
	var scratch []any
	return sc.init(sc.newKey(key), inCode, &scratch)
}

// sameInCode reports whether inCode, with implied for the names it does not set, holds
// exactly the values set in code of k (the common case of a key defined again with the
// same values: nothing to validate, nothing to report).
func (sc *scope[O]) sameInCode(k *keyState, inCode map[string]string, implied ...Entry[CommandProperties]) bool {
	n := len(inCode)
	for _, e := range implied {
		if _, set := inCode[e.name]; !set {
			n++
			if !sc.holds(k, e.name, e.value) {
				return false
			}
		}
	}
	if n != len(k.inCode) {
		return false
	}
	for name, raw := range inCode {
		if !sc.holds(k, name, raw) {
			return false
		}
	}
	return true
}

// holds reports whether k was set in code to raw for the property name.
func (sc *scope[O]) holds(k *keyState, name, raw string) bool {
	i, ok := sc.byName[name]
	if !ok {
		return false
	}
	v, ok := k.inCodeRaw(i)
	return ok && v == raw
}

// SameInCode reports whether o, with implied for the names o does not set, holds exactly
// the values set in code the key was resolved with, as written: a later Setter of the key
// that changes nothing. It allocates nothing.
func (c *CommandProperties) SameInCode(o Overrides, implied ...Entry[CommandProperties]) bool {
	return commandScope.sameInCode(&c.k, o, implied...)
}

// InCode returns the values set in code the key was resolved with.
func (c *CommandProperties) InCode() Overrides {
	o := make(Overrides, len(c.k.inCode))
	for _, v := range c.k.inCode {
		o[commandScope.fields[v.i].shortName()] = v.raw
	}
	return o
}

// Difference is one property that two Values set differently.
type Difference struct {
	// Name is the Hystrix short name.
	Name string
	// First and Second are the values as the property prints them, so that both read in
	// one unit (the built-in default where a Values does not set the property); a name
	// that is no property, or a value that does not parse, as written.
	First, Second string
}

// String returns "<name>: <first> -> <second>".
func (d Difference) String() string { return d.Name + ": " + d.First + " -> " + d.Second }

// Diff lists the properties that o and other set to different values, sorted by name.
// Values are compared parsed ("300" and "300ms" are the same timeout), and a property
// that one of them does not set counts with its built-in default; unknown names and
// values that do not parse are compared as written.
func (o Values[O]) Diff(other Values[O]) []Difference {
	names := slices.Collect(maps.Keys(o))
	for n := range other {
		if _, ok := o[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []Difference
	for _, n := range names {
		a, aok := o[n]
		b, bok := other[n]
		f := anyScopeField(n)
		if f == nil {
			if a != b || aok != bok {
				out = append(out, Difference{Name: n, First: a, Second: b})
			}
			continue
		}
		if !aok {
			a = f.defaultString()
		}
		if !bok {
			b = f.defaultString()
		}
		if ca, cb := f.canonical(a), f.canonical(b); ca != cb {
			out = append(out, Difference{Name: n, First: ca, Second: cb})
		}
	}
	return out
}

// codecField is what Diff needs of a property, whatever its scope.
type codecField interface {
	defaultString() string
	canonical(raw string) string // parsed and printed; raw itself when it does not parse
}

// anyScopeField returns the property of short name n of the first scope that has it
// (properties of the same name in several scopes read the same way), or nil.
func anyScopeField(n string) codecField {
	if i, ok := commandScope.byName[n]; ok {
		return commandScope.fields[i]
	}
	if i, ok := threadPoolScope.byName[n]; ok {
		return threadPoolScope.fields[i]
	}
	if i, ok := collapserScope.byName[n]; ok {
		return collapserScope.fields[i]
	}
	return nil
}
