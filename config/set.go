package config

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync/atomic"
	"time"
)

// Memory layout. A key costs one owner struct (CommandProperties, ThreadPoolProperties
// or CollapserProperties: its keyState inline) and one slab per value type holding the
// key's Properties of that type side by side, each found by its desc's slab and index.
// Everything that is the same for every key (short name,
// default name, built-in default, codec, range rule, cross-property rules) lives once in
// a package-level scope table (commandScope, threadPoolScope, collapserScope). A value
// equal to the built-in default, and every bool and IsolationStrategy value, points to a
// shared read-only variable, so a key whose properties are all defaults allocates no
// values; candidates during resolution live in a scratch slice of the Store.

// keyState is the per-key state of one key of one scope, kept inline in its owner.
// Everything but scope and key changes only under the owning Store's lock.
type keyState struct {
	scope   string           // "command", "threadpool" or "collapser"
	key     string           // the command, thread-pool or collapser key
	slabs   []any            // the key's Properties: slabs[t] is a []Property[T] (see desc)
	inCode  []inCodeValue    // values set in code, by field index; nil when none
	errs    []*PropertyError // the bad values of its last resolution; nil when none
	idx     int              // index in Store.sets; -1 once forgotten
	envTwin string           // a held key (or "default") sharing its environment names
	version atomic.Uint64    // counts the values published for the key
}

// inCodeValue is one value set in code: the raw string of field i.
type inCodeValue struct {
	i   int
	raw string
}

// name returns hystrix.<scope>.<key>.<short>.
func (k *keyState) name(short string) string {
	return "hystrix." + k.scope + "." + k.key + "." + short
}

// inCodeRaw returns the value set in code for field i.
func (k *keyState) inCodeRaw(i int) (string, bool) {
	for _, v := range k.inCode {
		if v.i == i {
			return v.raw, true
		}
	}
	return "", false
}

// resolution is the state of resolving the properties of one key of owner type O:
// cand[i] is the candidate value of field i as a *T (never written through).
type resolution[O any] struct {
	sc   *scope[O]
	o    *O
	k    *keyState
	cand []any
}

// field is one property of a scope, shared by every key, seen without its value type.
// Everything but value runs under the owning Store's lock.
type field[O any] interface {
	shortName() string
	defaultName() string   // hystrix.<scope>.default.<short>
	setScope(scope string) // called once, when the property is declared
	valueType() reflect.Type
	place(s *slab, j int) // called once, when the property is declared
	build(k *keyState)    // makes the key's Property (no value yet)
	useDefault(r *resolution[O], i int)
	revert(r *resolution[O], i int) // candidate := the published value
	stage(r *resolution[O], i int, raw string) error
	changed(r *resolution[O], i int) bool
	commit(r *resolution[O], i int)
	formatCand(r *resolution[O], i int) string
	value(k *keyState) string
	codecField
}

// desc describes one property of type T of owner type O: the metadata shared by every
// key and where the key's Property is: in the slab of its type, at j.
type desc[O any, T comparable] struct {
	meta[T]
	slab   *slab  // the scope's slab of T
	j      int    // the index in it
	prefix string // hystrix.<scope>.
	dflt   string // hystrix.<scope>.default.<short>
	def    *T     // built-in default, shared
	parse  func(string) (T, error)
	valid  func(T) error // nil: any parsable value
	values []T           // shared values (see codec.values)
}

func (d *desc[O, T]) shortName() string   { return d.short }
func (d *desc[O, T]) defaultName() string { return d.dflt }
func (d *desc[O, T]) setScope(scope string) {
	d.prefix = "hystrix." + scope + "."
	d.dflt = d.prefix + "default." + d.short
}

func (d *desc[O, T]) build(k *keyState) {
	s, _ := k.slabs[d.slab.t].([]Property[T])
	if s == nil {
		s = make([]Property[T], d.slab.n)
		k.slabs[d.slab.t] = s
	}
	p := &s[d.j]
	p.key, p.m = k, &d.meta
}

// of returns the key's Property.
func (d *desc[O, T]) of(k *keyState) *Property[T] { return &k.slabs[d.slab.t].([]Property[T])[d.j] }

func (d *desc[O, T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

func (d *desc[O, T]) place(s *slab, j int) { d.slab, d.j = s, j }

// slab is where a scope's properties of one value type are, in every key: the key's
// slabs[t], a slice of n Properties.
type slab struct {
	typ reflect.Type
	t   int
	n   int
}

// intern returns a pointer to v that may be published: cur if it holds v, else the
// shared default or shared value equal to v, else a new one.
func (d *desc[O, T]) intern(v T, cur *T) *T {
	switch {
	case cur != nil && *cur == v:
		return cur
	case d.def != nil && *d.def == v:
		return d.def
	}
	for i := range d.values {
		if d.values[i] == v {
			return &d.values[i]
		}
	}
	return &v
}

func (d *desc[O, T]) current(r *resolution[O]) *T { return d.of(r.k).v.Load() }
func (d *desc[O, T]) next(r *resolution[O], i int) *T {
	return r.cand[i].(*T)
}

func (d *desc[O, T]) useDefault(r *resolution[O], i int) { r.cand[i] = d.def }
func (d *desc[O, T]) revert(r *resolution[O], i int)     { r.cand[i] = d.current(r) }

func (d *desc[O, T]) stage(r *resolution[O], i int, raw string) error {
	v, err := d.parseValid(raw)
	if err != nil {
		return err
	}
	r.cand[i] = d.intern(v, d.current(r))
	return nil
}

// parseValid parses raw and checks the value against the property's rule.
func (d *desc[O, T]) parseValid(raw string) (T, error) {
	v, err := d.parse(raw)
	if err == nil && d.valid != nil {
		err = d.valid(v)
	}
	return v, err
}

// changed reports whether the candidate differs from the published value (from the
// built-in default before anything is published).
func (d *desc[O, T]) changed(r *resolution[O], i int) bool {
	if old := d.current(r); old != nil {
		return *old != *d.next(r, i)
	}
	return *d.next(r, i) != *d.def
}

// commit publishes the candidate; an unchanged value is not stored again.
func (d *desc[O, T]) commit(r *resolution[O], i int) {
	p := d.of(r.k)
	next := d.next(r, i)
	if old := p.v.Load(); old == nil || (old != next && *old != *next) {
		p.v.Store(next)
		p.key.version.Add(1)
	}
}

func (d *desc[O, T]) formatCand(r *resolution[O], i int) string {
	return d.format(*d.next(r, i))
}

func (d *desc[O, T]) value(k *keyState) string { return d.of(k).String() }

func (d *desc[O, T]) defaultString() string { return d.format(*d.def) }

func (d *desc[O, T]) canonical(raw string) string {
	if v, err := d.parse(raw); err == nil {
		return d.format(v)
	}
	return raw
}

// candValue returns the candidate value of field i, which must be of type T.
func candValue[T any, O any](r *resolution[O], i int) T { return *r.cand[i].(*T) }

// check is a cross-property rule over candidate values. When it fails, its fields keep
// their previous values. The fields of different checks of one scope never overlap.
type check[O any] struct {
	fields []int
	run    func(r *resolution[O]) *PropertyError
}

// scope is the table of every property of one scope ("command", "threadpool",
// "collapser"), shared by every key of that scope. Its properties join it as they are
// declared (key); its cross-property checks are added by the init of the file that
// declares them.
type scope[O any] struct {
	names
	fields []field[O]
	slabs  []*slab
	checks []check[O]
	state  func(*O) *keyState
}

// names are the names of the properties of one scope, whatever its owner type: what
// the name checks and hints need.
type names struct {
	name      string         // as in hystrix.<name>.<KEY>.X
	label     string         // for messages: "command", "thread-pool", "collapser"
	prefix    string         // "hystrix.<name>."
	envPrefix string         // envName(prefix)
	shorts    []string       // short names in declaration order
	envShorts []string       // envName of each short name
	longest   int            // length of the longest short name
	byName    map[string]int // short name -> field index
	byEnv     map[string]int // envName of the short name -> field index
}

// newScope returns the empty table of a scope; its properties join it with add.
func newScope[O any](name, label string, state func(*O) *keyState) *scope[O] {
	prefix := "hystrix." + name + "."
	return &scope[O]{names: names{name: name, label: label, prefix: prefix, envPrefix: envName(prefix),
		byName: map[string]int{}, byEnv: map[string]int{}}, state: state}
}

// add declares a property of the scope; it panics on a name declared twice.
func (sc *scope[O]) add(f field[O]) {
	short := f.shortName()
	if _, dup := sc.byName[short]; dup {
		panic("config: property " + short + " declared twice in scope " + sc.name)
	}
	i := len(sc.fields)
	f.setScope(sc.name)
	t := slices.IndexFunc(sc.slabs, func(s *slab) bool { return s.typ == f.valueType() })
	if t < 0 {
		t = len(sc.slabs)
		sc.slabs = append(sc.slabs, &slab{typ: f.valueType(), t: t})
	}
	f.place(sc.slabs[t], sc.slabs[t].n)
	sc.slabs[t].n++
	sc.fields = append(sc.fields, f)
	sc.shorts = append(sc.shorts, short)
	sc.envShorts = append(sc.envShorts, envName(short))
	sc.byName[short] = i
	sc.byEnv[envName(short)] = i
	sc.longest = max(sc.longest, len(short))
}

// index returns the field index of a short name; it panics on a typo in a table.
func (sc *scope[O]) index(short string) int {
	i, ok := sc.byName[short]
	if !ok {
		panic("config: no property " + short + " in scope " + sc.name)
	}
	return i
}

// newKey makes the owner of a key, with every Property but no values yet.
func (sc *scope[O]) newKey(key string) *O {
	o := new(O)
	k := sc.state(o)
	k.scope, k.key, k.idx = sc.name, key, -1
	k.slabs = make([]any, len(sc.slabs))
	for _, f := range sc.fields {
		f.build(k)
	}
	return o
}

func (sc *scope[O]) resolution(o *O, scratch *[]any) *resolution[O] {
	n := len(sc.fields)
	if cap(*scratch) < n {
		*scratch = make([]any, n)
	}
	return &resolution[O]{sc: sc, o: o, k: sc.state(o), cand: (*scratch)[:n]}
}

// done drops the candidates, so the scratch keeps no value alive.
func (r *resolution[O]) done() { clear(r.cand) }

// init validates the values set in code over the built-in defaults and publishes that
// baseline. Any unknown name, bad value or failed cross-property rule is an error and
// nothing is published.
func (sc *scope[O]) init(o *O, inCode map[string]string, scratch *[]any) error {
	r := sc.resolution(o, scratch)
	defer r.done()
	var errs []error
	var vals []inCodeValue
	for _, n := range slices.Sorted(maps.Keys(inCode)) {
		if i, ok := sc.byName[n]; ok {
			vals = append(vals, inCodeValue{i: i, raw: inCode[n]})
		} else {
			errs = append(errs, &PropertyError{Name: r.k.name(n), Value: inCode[n],
				InCode: true, Err: ErrUnknownProperty, Hint: sc.inCodeHint(n)})
		}
	}
	slices.SortFunc(vals, func(a, b inCodeValue) int { return a.i - b.i })
	for i, f := range sc.fields {
		f.useDefault(r, i)
	}
	for _, v := range vals {
		if err := sc.fields[v.i].stage(r, v.i, v.raw); err != nil {
			errs = append(errs, &PropertyError{Name: r.k.name(sc.fields[v.i].shortName()),
				Value: v.raw, InCode: true, Err: err})
		}
	}
	if len(errs) == 0 {
		for _, c := range sc.checks {
			if e := c.run(r); e != nil {
				e.InCode = true
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	r.k.inCode = slices.Clip(vals)
	for i, f := range sc.fields {
		f.commit(r, i)
	}
	return nil
}

// refresh re-resolves every field against lookup (the dynamic sources) and publishes
// the values that changed. A bad value leaves its property at the previous value; every
// bad value is returned (keyState.unreported picks those to report).
func (sc *scope[O]) refresh(o *O, lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	r := sc.resolution(o, scratch)
	defer r.done()
	var errs []*PropertyError
	for i, f := range sc.fields {
		f.revert(r, i)
		raw, from, inCode, ok := r.resolve(i, lookup)
		if !ok {
			f.useDefault(r, i)
			continue
		}
		if err := f.stage(r, i, raw); err != nil {
			errs = append(errs, &PropertyError{Name: from, Value: raw, InCode: inCode, Err: err})
		}
	}
	for _, c := range sc.checks {
		if e := c.run(r); e != nil {
			for _, i := range c.fields {
				sc.fields[i].revert(r, i)
			}
			errs = append(errs, e)
		}
	}
	for i, f := range sc.fields {
		f.commit(r, i)
	}
	return errs
}

// resolve finds the raw value of field i by precedence: hystrix.<scope>.<key>.X, the
// value set in code, hystrix.<scope>.default.X. ok is false when none is set (built-in
// default).
func (r *resolution[O]) resolve(i int, lookup func(string) (string, bool)) (raw, from string, inCode, ok bool) {
	f := r.sc.fields[i]
	from = r.k.name(f.shortName())
	if raw, ok = lookup(from); ok {
		return raw, from, false, true
	}
	if raw, ok = r.k.inCodeRaw(i); ok {
		return raw, from, true, true
	}
	from = f.defaultName()
	if raw, ok = lookup(from); ok {
		return raw, from, false, true
	}
	return "", "", false, false
}

// unreported records errs as the key's bad values and returns those that were not
// among them before (by name and value): the ones to report.
func (k *keyState) unreported(errs []*PropertyError) []*PropertyError {
	var out []*PropertyError
	for _, e := range errs {
		if !slices.ContainsFunc(k.errs, func(o *PropertyError) bool { return o.Name == e.Name && o.Value == e.Value }) {
			out = append(out, e)
		}
	}
	if len(errs) == 0 {
		errs = nil
	}
	k.errs = errs
	return out
}

// settings lists every field with its full name and current value, in declaration order.
func (sc *scope[O]) settings(o *O) []Setting {
	k := sc.state(o)
	out := make([]Setting, len(sc.fields))
	for i, f := range sc.fields {
		out[i] = Setting{Name: f.shortName(), FullName: k.name(f.shortName()), Value: f.value(k)}
	}
	return out
}

// divisible requires the window (in ms) to be a multiple of the bucket count. The error
// is about the bucket count when only that changed, else about the window; its message
// names both.
func divisible[O any](sc *scope[O], windowName, bucketsName string) check[O] {
	window, buckets := sc.index(windowName), sc.index(bucketsName)
	return check[O]{fields: []int{window, buckets}, run: func(r *resolution[O]) *PropertyError {
		w, n := candValue[time.Duration](r, window), candValue[int](r, buckets)
		ms := int64(w / time.Millisecond)
		if ms%int64(n) == 0 {
			return nil
		}
		wf, bf := r.sc.fields[window], r.sc.fields[buckets]
		if bf.changed(r, buckets) && !wf.changed(r, window) {
			return &PropertyError{Name: r.k.name(bf.shortName()), Value: bf.formatCand(r, buckets),
				Err: fmt.Errorf("does not divide %s=%d", r.k.name(wf.shortName()), ms)}
		}
		return &PropertyError{Name: r.k.name(wf.shortName()), Value: wf.formatCand(r, window),
			Err: fmt.Errorf("not divisible by %s=%d", r.k.name(bf.shortName()), n)}
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
