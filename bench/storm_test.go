package bench

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStorm is the retry-storm acceptance (issue 27), bounded to about 2.5 s of offered load a library (about 25 s in all, with the goroutines of the failing calls): a
// backend failing every call at 1,000 calls a second, retries up to 3. With the 20 %
// budget rxhystrix makes at most 1.2 attempts per call; without it about 4; failsafe-go
// runs beside it for the record (its budget caps concurrent retries, not their share).
func TestStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("about 25 s")
	}
	testStorm(t, DefaultStorm(), 1.2)
}

// TestWarmStorm is issue 35's storm: the same outage after 5 s of healthy traffic, at 500
// calls a second. The budget holds it as it holds a cold one (it made 1.70 attempts per
// call when its window was 10 s: the healthy seconds paid for the retries); the bound
// allows for a sliding window of 1 s against an outage that does not start on a bucket.
func TestWarmStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("about 15 s")
	}
	// only the budgets: without one a warm storm is the cold one
	testStorm(t, WarmStorm(), 1.25, "budget")
}

// testStorm runs s through the libraries whose names contain one of only (every one
// without).
func testStorm(t *testing.T, s Storm, bound float64, only ...string) {
	libs := StormLibraries(s)
	names := make([]string, 0, len(libs))
	for n := range libs {
		if len(only) == 0 || slices.ContainsFunc(only, func(o string) bool { return strings.Contains(n, o) && !strings.Contains(n, "no "+o) }) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		call, closer := libs[name]()
		o := RunStorm(name, s, call)
		closer()
		t.Logf("%-24s originals %5d  attempts %5d  per original %.2f  first success after recovery %v",
			name, o.Originals, o.Attempts, o.AttemptsPerOriginal(), o.FirstSuccessAfter)
		switch name {
		case "rxhystrix budget 20%":
			assert.LessOrEqual(t, o.AttemptsPerOriginal(), bound)
		case "rxhystrix no budget":
			assert.InDelta(t, 4, o.AttemptsPerOriginal(), 0.1)
		}
		if name[:2] == "rx" {
			assert.Positive(t, o.FirstSuccessAfter)
			assert.LessOrEqual(t, o.FirstSuccessAfter, s.MaxBackoff, "the first success after recovery within one backoff")
		}
	}
}
