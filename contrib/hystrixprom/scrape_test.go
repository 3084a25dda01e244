package hystrixprom

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// TestScrapeIsTheGoldenExposition pins every series of a scrape, with its name, labels,
// help, type and value, to testdata/scrape.txt: command keys that succeeded, failed,
// timed out and fell back (some of it still in the health window), a breaker that opened and closed again, a thread pool and a
// collapser. A change in what a scrape exposes shows as a diff against that file. The
// Handler serves the same families and samples.
func TestScrapeIsTheGoldenExposition(t *testing.T) {
	rt, clk := newRuntime(t)
	c := New(rt)
	defer c.Close()
	h := NewHandler(rt, HandlerOpts{})
	defer h.Close()
	opened := make(chan breaker.Transition, 3)
	defer rt.Breakers().OnStateChange(func(tr breaker.Transition) { opened <- tr })()

	execute(rt, clk, "GetUser", 25*time.Millisecond, nil)
	execute(rt, clk, "GetUser", 40*time.Millisecond, nil)
	execute(rt, clk, "GetUser", 10*time.Millisecond, errors.New("down"))
	execute(rt, clk, "GetUser", 1500*time.Millisecond, nil) // past the 1 s timeout
	for range 20 {
		execute(rt, clk, "Trip", time.Millisecond, errors.New("down"))
	}
	advance(rt, clk, 500*time.Millisecond) // a health snapshot: the breaker opens
	require.Equal(t, breaker.Open, (<-opened).To)
	execute(rt, clk, "Trip", time.Millisecond, nil) // short-circuited
	advance(rt, clk, 5*time.Second)                 // the sleep window: the next call is the trial
	execute(rt, clk, "Trip", 2*time.Millisecond, nil)
	require.Equal(t, breaker.HalfOpen, (<-opened).To)
	require.Equal(t, breaker.Closed, (<-opened).To)

	charge := command.Setter{Runtime: rt, CommandKey: "Charge", GroupKey: "Billing", ThreadPoolKey: "Payments",
		ThreadPoolProperties: config.ThreadPoolOverrides{"coreSize": "1", "maximumSize": "1", "maxQueueSize": "5"}}
	for range 2 {
		_, err := command.New(charge, func(context.Context) (int, error) { return 1, nil }).Execute(context.Background())
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return rt.Metrics().ThreadPool("Payments").Gauges().CompletedTaskCount == 2 },
		5*time.Second, time.Millisecond, "the worker counts a task after the caller has its value")

	batcher := rt.Metrics().Collapser("Batcher")
	batcher.MarkBatch(3)
	batcher.MarkBatch(5)
	batcher.MarkResponseFromCache()
	advance(rt, clk, 10*time.Second) // a percentile bucket closed for every key
	execute(rt, clk, "GetUser", 5*time.Millisecond, nil)
	execute(rt, clk, "GetUser", 5*time.Millisecond, errors.New("down"))
	advance(rt, clk, time.Second) // in the health window and the cumulative counts

	golden, err := os.ReadFile("testdata/scrape.txt")
	require.NoError(t, err)
	require.NoError(t, testutil.CollectAndCompare(c, bytes.NewReader(golden)))
	_, served := get(t, h, "gzip")
	require.Equal(t, families(t, string(golden)), families(t, served))
}
