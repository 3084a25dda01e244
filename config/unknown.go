package config

import "strings"

// unknownName reports whether a dynamic name is in a property scope
// (hystrix.command.…, or its environment form HYSTRIX_COMMAND_…; likewise threadpool and
// collapser) but ends in no property name of that scope, so that no key can use it
// (keys may hold dots, so any dot can end the key). hint names the nearest property.
func unknownName(name string) (hint string, unknown bool) {
	for _, n := range allNames {
		if rest, ok := strings.CutPrefix(name, n.prefix); ok {
			return unknownRest(rest, '.', n.byName, n.shorts, n.prefix)
		}
		if rest, ok := strings.CutPrefix(name, n.envPrefix); ok {
			return unknownRest(rest, '_', n.byEnv, n.envShorts, n.envPrefix)
		}
	}
	return "", false
}

// unknownRest checks rest = <KEY><sep><short> against the short names of a scope in
// one spelling (known, candidates) and hints at prefix<KEY><sep><nearest short>.
func unknownRest(rest string, sep byte, known map[string]int, candidates []string, prefix string) (hint string, unknown bool) {
	for i := 1; i < len(rest); i++ {
		if rest[i] == sep {
			if _, ok := known[rest[i+1:]]; ok {
				return "", false
			}
		}
	}
	best, key, bestDist := "", "", -1
	for i := 1; i < len(rest); i++ {
		if rest[i] != sep {
			continue
		}
		if s, d, ok := closest(rest[i+1:], candidates); ok && (bestDist < 0 || d < bestDist) {
			best, key, bestDist = s, rest[:i], d
		}
	}
	if bestDist >= 0 {
		hint = "did you mean " + prefix + key + string(sep) + best + "?"
	}
	return hint, true
}
