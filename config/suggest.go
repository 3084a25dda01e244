package config

import (
	"strconv"
	"strings"
)

// allNames are the names of every scope.
var allNames = []*names{&commandScope.names, &threadPoolScope.names, &collapserScope.names}

// namesOf returns the names of scope ("command", "threadpool", "collapser").
func namesOf(scope string) *names {
	for _, n := range allNames {
		if n.name == scope {
			return n
		}
	}
	panic("config: no scope " + scope)
}

func (n *names) has(short string) bool { _, ok := n.byName[short]; return ok }

// inCodeHint helps with an unknown short name set in code: the short form of a full
// Hystrix name of this scope, the scope that has the name, or a near miss.
func (n *names) inCodeHint(short string) string {
	if rest, ok := strings.CutPrefix(short, "hystrix."+n.name+"."); ok {
		for i := range len(rest) {
			if rest[i] == '.' && n.has(rest[i+1:]) {
				return "set in code by short name: " + strconv.Quote(rest[i+1:])
			}
		}
	}
	for _, other := range allNames {
		if other != n && other.has(short) {
			return strconv.Quote(short) + " is a " + other.label + " property"
		}
	}
	if best, _, ok := closest(short, n.shorts); ok {
		return "did you mean " + strconv.Quote(best) + "?"
	}
	return ""
}

// closest returns the candidate nearest to s (ignoring letter case) and its distance;
// ok if it is near enough to be a misspelling: at most 2 edits, or one in five
// characters.
func closest(s string, candidates []string) (best string, dist int, ok bool) {
	limit := max(2, len(s)/5)
	ls := ""
	dist = -1
	for _, c := range candidates {
		if abs(len(s)-len(c)) > limit {
			continue // farther than limit (so long inputs cost nothing)
		}
		if ls == "" {
			ls = strings.ToLower(s)
		}
		if d := distance(ls, strings.ToLower(c)); dist < 0 || d < dist {
			best, dist = c, d
		}
	}
	return best, dist, dist >= 0 && dist <= limit
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

func abs(n int) int { return max(n, -n) }
