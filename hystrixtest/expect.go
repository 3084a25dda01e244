package hystrixtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// shown is how many lines of each list a failed expectation shows, from just before the
// first difference: with the summary and the headers a report fits a screen (40 lines).
const shown = 16

// expect reports with t.Errorf when got differs from want: a summary line first (where
// the lists first differ, what each has there, their lengths), then a window of each
// list around that place.
func expect(t testing.TB, what string, got, want []string) bool {
	t.Helper()
	if slices.Equal(got, want) {
		return true
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s differ at #%d: got %s, want %s (%d got, %d wanted)",
		what, i+1, at(got, i), at(want, i), len(got), len(want))
	from := max(0, i-2)
	window(&b, " got", got, from)
	window(&b, "want", want, from)
	t.Errorf("%s", b.String())
	return false
}

// at returns the i-th line of list quoted, or "nothing" past its end.
func at(list []string, i int) string {
	if i < len(list) {
		return strconv.Quote(list[i])
	}
	return "nothing"
}

// window writes at most shown lines of list from from, numbered, and how many it leaves
// out before and after.
func window(b *strings.Builder, label string, list []string, from int) {
	fmt.Fprintf(b, "\n%s:", label)
	from = min(from, len(list))
	if from > 0 {
		fmt.Fprintf(b, "\n  … %d before", from)
	}
	to := min(len(list), from+shown)
	for j := from; j < to; j++ {
		fmt.Fprintf(b, "\n  #%d %s", j+1, list[j])
	}
	if rest := len(list) - to; rest > 0 {
		fmt.Fprintf(b, "\n  … %d more", rest)
	}
}
