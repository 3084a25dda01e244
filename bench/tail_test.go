package bench

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The tail acceptance: hedging at the key's own p95 cuts the callers' p99 from the slow
// requests' 200 ms to at most 3x the hedge delay, with at most 10 % extra attempts.
func TestTail(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s")
	}
	s := DefaultTail()
	libs := TailLibraries(s)
	names := make([]string, 0, len(libs))
	for n := range libs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		lib := libs[name]()
		o := RunTail(name, s, lib)
		lib.close()
		t.Logf("%-16s calls %5d  extra attempts %5.1f %%  p50 %v  p99 %v  max %v  hedge delay %v",
			name, o.Originals, 100*o.ExtraShare(), o.P50, o.P99, o.Max, o.HedgeDelay)
		if name == "rxhystrix p95" {
			assert.Positive(t, o.HedgeDelay, "the key's p95 was in use")
			assert.LessOrEqual(t, o.P99, 3*o.HedgeDelay, "p99 within 3x the hedge delay")
			assert.LessOrEqual(t, o.ExtraShare(), 0.10, "extra attempts at most 10 % of the calls")
		}
	}
}
