package bench

import (
	"sort"
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
	s := DefaultStorm()
	libs := StormLibraries(s)
	names := make([]string, 0, len(libs))
	for n := range libs {
		names = append(names, n)
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
			assert.LessOrEqual(t, o.AttemptsPerOriginal(), 1.2)
		case "rxhystrix no budget":
			assert.InDelta(t, 4, o.AttemptsPerOriginal(), 0.1)
		}
		if name[:2] == "rx" {
			assert.Positive(t, o.FirstSuccessAfter)
			assert.LessOrEqual(t, o.FirstSuccessAfter, s.MaxBackoff, "the first success after recovery within one backoff")
		}
	}
}
