package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// requestEvents are the outcomes that make up a command's request rate.
var requestEvents = []metrics.EventType{
	metrics.Success, metrics.Failure, metrics.Timeout, metrics.BadRequest, metrics.ShortCircuited,
	metrics.ThreadPoolRejected, metrics.SemaphoreRejected, metrics.ResponseFromCache,
}

// printDelay is how long after a whole second the table is printed: the metrics close
// their one-second buckets at whole seconds (they are aligned to the clock), so every
// line sees exactly one more closed second than the line before.
const printDelay = 100 * time.Millisecond

// untilNextLine returns how long to wait, from now, for the next line of the table.
func untilNextLine(now time.Time) time.Duration {
	return now.Truncate(time.Second).Add(time.Second + printDelay).Sub(now)
}

// table prints one line per command key: counts per second (the difference of the
// cumulative counts since the line before, which move once per closed second), the
// error percentage the breaker sees (its 10 s health window), the breaker state and the
// latency percentiles.
type table struct {
	rt   *command.Runtime
	last map[string]counts // each key's cumulative counts at the line before
}

// counts are the cumulative counts a line shows the increase of.
type counts struct{ requests, rejected, shortCircuited, timeouts int64 }

func newTable(rt *command.Runtime) *table { return &table{rt: rt, last: map[string]counts{}} }

// print writes the lines of every command key, headed by the time since the start.
func (t *table) print(w io.Writer, elapsed time.Duration) {
	fmt.Fprintf(w, "--- %s ---\n", elapsed.Round(time.Second))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\treq/s\terror%\tbreaker\tp50\tp99\trejected/s\tshort-circuited/s\ttimeouts/s")
	for _, m := range t.rt.Metrics().Commands() {
		props, err := t.rt.Config().Command(m.Key(), nil)
		if err != nil {
			continue
		}
		now := counts{
			rejected:       m.CumulativeCount(metrics.ThreadPoolRejected) + m.CumulativeCount(metrics.SemaphoreRejected),
			shortCircuited: m.CumulativeCount(metrics.ShortCircuited),
			timeouts:       m.CumulativeCount(metrics.Timeout),
		}
		for _, e := range requestEvents {
			now.requests += m.CumulativeCount(e)
		}
		before := t.last[m.Key()]
		t.last[m.Key()] = now
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t%d\n",
			m.Key(), now.requests-before.requests, m.HealthCounts().ErrorPercentage,
			t.rt.Breakers().Get(m.Key(), props).State(),
			m.ExecutionLatencyPercentile(50).Round(time.Millisecond),
			m.ExecutionLatencyPercentile(99).Round(time.Millisecond),
			now.rejected-before.rejected, now.shortCircuited-before.shortCircuited, now.timeouts-before.timeouts)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
