package config

import (
	"strconv"
	"strings"
)

// inCodeHint helps with an unknown short name n set in code: a full Hystrix name of
// this scope, a name of another scope, or a near miss of a name of this scope.
func (sc *scope[O]) inCodeHint(n string) string {
	prefix := "hystrix." + sc.name + "."
	if rest, ok := strings.CutPrefix(n, prefix); ok {
		for i := range len(rest) {
			if rest[i] == '.' && sc.has(rest[i+1:]) {
				return "set in code by short name: " + strconv.Quote(rest[i+1:])
			}
		}
	}
	if other := otherScope(n, sc.name); other != "" {
		return strconv.Quote(n) + " is a " + other + " property"
	}
	if best, _, ok := sc.closest(n); ok {
		return "did you mean " + strconv.Quote(best) + "?"
	}
	return ""
}

// dynamicHint helps with an unknown dynamic name hystrix.<scope>.<rest>: the name with
// the closest known short name after some dot of rest (keys may hold dots).
func (sc *scope[O]) dynamicHint(rest string) string {
	best, bestKey, bestDist := "", "", -1
	for i := range len(rest) {
		if rest[i] != '.' {
			continue
		}
		if s, d, ok := sc.closest(rest[i+1:]); ok && (bestDist < 0 || d < bestDist) {
			best, bestKey, bestDist = s, rest[:i], d
		}
	}
	if bestDist < 0 {
		return ""
	}
	return "did you mean hystrix." + sc.name + "." + bestKey + "." + best + "?"
}

// closest returns the short name of sc nearest to n (ignoring letter case) and its
// distance; ok if it is near enough to be a misspelling: at most 2 edits, or one in
// five characters.
func (sc *scope[O]) closest(n string) (best string, dist int, ok bool) {
	ln := strings.ToLower(n)
	dist = -1
	for _, f := range sc.fields {
		if d := distance(ln, strings.ToLower(f.shortName())); dist < 0 || d < dist {
			best, dist = f.shortName(), d
		}
	}
	return best, dist, dist >= 0 && dist <= max(2, len(n)/5)
}

// distance is the Levenshtein distance between a and b (in bytes).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
