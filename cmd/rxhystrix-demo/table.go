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

// printTable writes one line per command key: rate over the rolling window, error
// percentage of the health counts, breaker state, latency percentiles and rejections.
func printTable(w io.Writer, rt *command.Runtime, elapsed time.Duration) {
	fmt.Fprintf(w, "--- %s ---\n", elapsed.Truncate(time.Second))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMAND\treq/s\terror%\tbreaker\tp50\tp99\trejected\tshort-circuited\ttimeouts")
	for _, m := range rt.Metrics().Commands() {
		props, err := rt.Config().Command(m.Key(), nil)
		if err != nil {
			continue
		}
		var requests int64
		for _, e := range requestEvents {
			requests += m.RollingCount(e)
		}
		window := props.RollingStatsWindow.Get().Seconds()
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%s\t%s\t%s\t%d\t%d\t%d\n",
			m.Key(), float64(requests)/window, m.HealthCounts().ErrorPercentage,
			rt.Breakers().Get(m.Key(), props).State(),
			m.ExecutionLatencyPercentile(50).Round(time.Millisecond),
			m.ExecutionLatencyPercentile(99).Round(time.Millisecond),
			m.RollingCount(metrics.ThreadPoolRejected)+m.RollingCount(metrics.SemaphoreRejected),
			m.RollingCount(metrics.ShortCircuited), m.RollingCount(metrics.Timeout))
	}
	tw.Flush()
	fmt.Fprintln(w)
}
