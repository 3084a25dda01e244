package config

import "strings"

// nameRules say which names of a source are meant to be properties.
type nameRules struct {
	env  bool // the environment: names in the HYSTRIX_COMMAND_… form are read too
	only bool // every name is meant to be a property (PropertiesOnly)
}

// rulesOf returns the name rules of src.
func rulesOf(src Source) nameRules {
	_, env := src.(*envSource)
	only, ok := src.(PropertiesOnly)
	return nameRules{env: env, only: ok && only.OnlyProperties()}
}

// unknownName reports whether a name of a source names no property although it is
// meant to. Meant to are the names of the Hystrix namespace: those that start with
// "hystrix" in any letter case or misspelt by one letter, followed by '.' or, in the
// environment's form, '_' (HYSTRIX_COMMAND_…); with rules.only every name. A name names
// a property if it is hystrix.<scope>.<KEY>.<name> with a property name of the scope
// (keys may hold dots, so any dot can end the key), or its environment form from the
// environment. hint names the nearest property, or says how property names start.
func unknownName(name string, rules nameRules) (hint string, unknown bool) {
	for _, n := range allNames {
		for _, sp := range [...]spelling{n.dotted(), n.envForm()} {
			rest, ok := strings.CutPrefix(name, sp.prefix)
			if !ok {
				continue
			}
			i, known := sp.shortAt(rest)
			switch {
			case !known:
				return sp.hint(rest), true
			case sp.sep == '_' && !rules.env:
				return "the " + sp.prefix + "… form is read from the environment only: write " +
					n.prefix + "<KEY>." + n.shorts[i], true
			}
			return "", false
		}
	}
	if rest, sep, ok := inNamespace(name); ok {
		return scopeHint(rest, sep), true
	}
	if rules.only {
		return scopeHint(name, '.'), true
	}
	return "", false
}

// spelling is one form of the names of a scope: dotted (hystrix.command.<KEY>.name) or
// the environment's (HYSTRIX_COMMAND_<KEY>_NAME).
type spelling struct {
	n      *names
	prefix string
	sep    byte
	known  map[string]int // short name in this form -> field index
	shorts []string       // short names in this form
}

func (n *names) dotted() spelling  { return spelling{n, n.prefix, '.', n.byName, n.shorts} }
func (n *names) envForm() spelling { return spelling{n, n.envPrefix, '_', n.byEnv, n.envShorts} }

// shortAt returns the field index of the short name that ends rest = <KEY><sep><short>.
func (sp spelling) shortAt(rest string) (i int, ok bool) {
	for j := max(1, len(rest)-sp.n.longest-1); j < len(rest); j++ { // no longer suffix is a short name
		if rest[j] == sp.sep {
			if i, ok := sp.known[rest[j+1:]]; ok {
				return i, true
			}
		}
	}
	return 0, false
}

// hint helps with rest = <KEY><sep><short> whose short is unknown: prefix<KEY><sep> and
// the nearest short name, or "" if none is near.
func (sp spelling) hint(rest string) string {
	best, key, bestDist := "", "", -1
	for i := 1; i < len(rest); i++ {
		if rest[i] != sp.sep {
			continue
		}
		if s, d, ok := closest(rest[i+1:], sp.shorts); ok && (bestDist < 0 || d < bestDist) {
			best, key, bestDist = s, rest[:i], d
		}
	}
	if bestDist < 0 {
		return ""
	}
	return "did you mean " + sp.prefix + key + string(sp.sep) + best + "?"
}

// inNamespace reports whether name starts with "hystrix" (in any letter case, or one
// edit away from it) and a separator, '.' or '_', and returns what follows it.
func inNamespace(name string) (rest string, sep byte, ok bool) {
	i := strings.IndexAny(name[:min(len(name), len("hystrix")+2)], "._")
	if i < len("hystrix")-1 || distance(strings.ToLower(name[:i]), "hystrix") > 1 {
		return "", 0, false
	}
	return name[i+1:], name[i], true
}

// scopeHint helps with rest, what follows a misspelt or missing "hystrix" prefix, or a
// misspelt scope after it: the nearest property name when rest starts with a scope
// (spelt near enough, in the form sep says), else how property names start.
func scopeHint(rest string, sep byte) string {
	var best spelling
	at, bestDist := 0, -1
	for _, n := range allNames {
		sp := n.dotted()
		if sep == '_' {
			sp = n.envForm()
		}
		scope := sp.prefix[len("hystrix.") : len(sp.prefix)-1] // command, or COMMAND
		for i := 1; i < len(rest) && i <= len(scope)+2; i++ {
			if rest[i] != sep {
				continue
			}
			if _, d, ok := closest(rest[:i], []string{scope}); ok && (bestDist < 0 || d < bestDist) {
				best, at, bestDist = sp, i, d
			}
		}
	}
	if bestDist < 0 {
		if sep == '_' {
			return "property names in the environment start with HYSTRIX_COMMAND_, HYSTRIX_THREADPOOL_ or HYSTRIX_COLLAPSER_"
		}
		return "property names start with hystrix.command., hystrix.threadpool. or hystrix.collapser."
	}
	tail := rest[at+1:]
	if sep == '_' {
		tail = envName(tail)
	}
	if _, known := best.shortAt(tail); known {
		return "did you mean " + best.prefix + tail + "?"
	}
	if hint := best.hint(tail); hint != "" {
		return hint
	}
	return "did you mean " + best.prefix + tail + "? (but no " + best.n.label + " property has that name)"
}
