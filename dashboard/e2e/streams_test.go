//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/dashboard"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// syntheticStream serves snapshot() as /hystrix.stream through the engine of
// dashboard.NewStreamHandler (which reads the library's registries instead), at its
// default interval; with allowOrigin, pages of that origin may read it
// (dashboard.WithAllowOrigin).
func syntheticStream(snapshot func() wire.Snapshot, allowOrigin string) http.Handler {
	s := sse.NewSettings(sse.DefaultInterval)
	s.AllowOrigin = allowOrigin
	return sse.New(sse.Snapshots(snapshot), s)
}

// host returns one instance's snapshot: the same command and pool on every host, with
// numbers that make each sum and average exact. requests is Hystrix's requestCount, which
// leaves short circuits and bad requests out.
func host(requests, errPct, success, failure, timeout, short, poolRejected, semRejected, bad int64,
	lat wire.Percentiles, mean int64, open bool, active, poolSize, executions, core, maximum int) wire.Snapshot {
	cmd := wire.Command{
		Name: "GetUser", Group: "Users", ThreadPool: "Users", IsCircuitBreakerOpen: open,
		ErrorPercentage: int(errPct), RequestCount: requests, LatencyExecute: lat, LatencyExecuteMean: mean,
		CommandCounts: wire.CommandCounts{Success: success, Failure: failure, Timeout: timeout,
			ShortCircuited: short, ThreadPoolRejected: poolRejected, SemaphoreRejected: semRejected, BadRequests: bad},
	}
	cmd.MetricsRollingStatisticalWindowInMilliseconds = 10000
	return wire.Snapshot{
		Commands: []wire.Command{cmd},
		ThreadPools: []wire.ThreadPool{{Name: "Users", CurrentActiveCount: active, CurrentPoolSize: poolSize,
			CurrentCorePoolSize: core, CurrentMaximumPoolSize: maximum, CurrentQueueSize: 1,
			RollingCountThreadsExecuted: int64(executions), RollingMaxActiveThreads: int64(poolSize),
			PropertyValueQueueSizeRejectionThreshold: 5, PropertyValueMetricsRollingStatisticalWindow: 10000}},
	}
}

// TestSeveralStreamsSummedLikeTurbine serves two instances' streams, the second on
// another origin, and shows them summed on one page.
func TestSeveralStreamsSummedLikeTurbine(t *testing.T) {
	a := host(100, 10, 90, 6, 4, 0, 2, 0, 0, wire.Percentiles{0, 0, 10, 0, 20, 0, 40, 50, 0}, 12, false, 2, 4, 40, 4, 8)
	a.Commands = append(a.Commands, wire.Command{Name: "OnlyOnA", Group: "A", ThreadPool: "A"})
	b := host(300, 30, 200, 50, 40, 10, 0, 3, 3, wire.Percentiles{0, 0, 21, 0, 41, 0, 81, 101, 0}, 25, true, 3, 6, 60, 6, 10)
	a.Commands[0].Retry, b.Commands[0].Retry, b.Commands[0].BudgetExhausted, b.Commands[0].Hedge = 7, 12, 2, 3

	pageMux := http.NewServeMux()
	pageMux.Handle("/hystrix/", dashboard.NewPageHandler())
	pageMux.Handle("/hystrix.stream", syntheticStream(func() wire.Snapshot { return a }, ""))
	pageSrv := httptest.NewServer(pageMux)
	t.Cleanup(pageSrv.Close) // after the tab's cleanup, which ends the streams it holds
	other := httptest.NewServer(syntheticStream(func() wire.Snapshot { return b }, pageSrv.URL))
	t.Cleanup(other.Close)

	tb := newTab(t, 1366, 900)
	q := url.Values{"stream": {"/hystrix.stream", other.URL + "/hystrix.stream"}}
	tb.do(chromedp.Navigate(pageSrv.URL + "/hystrix/?" + q.Encode()))
	tb.waitFor("both hosts", cardCond("circuits", "GetUser", `c.querySelector('[data-field=hosts]').textContent.startsWith('2 hosts')`),
		10*time.Second)

	// Hystrix's dashboard after Turbine: counts summed; error %, latencies and the window
	// averaged over reportingHosts; rate = every call summed (102 + 306, not the 400 of
	// requestCount) / averaged window.
	getUser := tb.card("circuits", "GetUser")
	assert.Equal(t, map[string]string{
		"keys": "Users · pool Users", "hosts": "2 hosts, 20.4/s each", "state": "Open on 1 of 2",
		"rate": "40.8", "errorPct": "20.0", "since": "",
		"success": "290", "shortCircuited": "10", "badRequest": "3", "timeout": "44", "rejected": "5", "failure": "56",
		"limited": "0", "injected": "0", "retry": "19", "budgetExhausted": "2", "hedge": "3", "throttled": "0",
		"items": "", "establishTimeout": "", "midStream": "", "resumed": "", "cutsCount": "", // not a stream key: not written
		"p50": "15", "p90": "30", "p99": "60", "p995": "75", "mean": "18",
	}, getUser.Fields)
	assert.Contains(t, getUser.Classes, "partial")
	assert.Contains(t, getUser.Classes, "retries")
	assert.Contains(t, getUser.Classes, "hedges")
	// 20.4/s a host: a radius of 4 + 20 * sqrt(20.4 / 400) = 8.5; 20 % errors, between
	// Hystrix's green (10 %) and yellow (25 %); open on one host only, so not red.
	assert.Equal(t, &circle{R: 8.5, Fill: "hsl(72, 80%, 40%)"}, getUser.Circle)
	// A card of its own, which the page may draw a frame after GetUser's.
	tb.waitFor("the key on one host", cardCond("circuits", "OnlyOnA", `c.querySelector('[data-field=hosts]').textContent !== ''`),
		10*time.Second)
	assert.Equal(t, "1 host", tb.card("circuits", "OnlyOnA").Fields["hosts"])
	assert.Equal(t, map[string]string{
		"hosts": "2 hosts", "rate": "10.0", "active": "5", "queued": "2", "poolSize": "10", "coreSize": "10",
		"maximumSize": "18", "maxActive": "10", "executions": "100", "rejections": "0", "queueThreshold": "5",
	}, tb.card("pools", "Users").Fields)

	// A Turbine stream reports the open breakers as a count or as {"true": n, "false": m}.
	type view struct {
		Hosts   int     `json:"hosts"`
		Rate    float64 `json:"rate"`
		PerHost float64 `json:"ratePerHost"`
		ErrPct  float64 `json:"errorPct"`
		State   string  `json:"state"`
		P99     int     `json:"p99"`
		Mean    int     `json:"mean"`
	}
	turbine := func(open string) view {
		return eval[view](tb, `(() => { const d = window.rxhystrixDashboard;
			return d.circuitView(d.sumFrames([{type: 'HystrixCommand', name: 'X', reportingHosts: 3,
				isCircuitBreakerOpen: `+open+`, requestCount: 500, rollingCountSuccess: 500, rollingCountShortCircuited: 100,
				errorPercentage: 30, latencyExecute: {'99': 91},
				latencyExecute_mean: 31, propertyValue_metricsRollingStatisticalWindowInMilliseconds: 30000}])); })()`)
	}
	assert.Equal(t, view{Hosts: 3, Rate: 60, PerHost: 20, ErrPct: 10, State: "Open on 1 of 3", P99: 30, Mean: 10},
		turbine(`{'true': 1, 'false': 2}`))
	assert.Equal(t, "Open", turbine("3").State)
	assert.Equal(t, "Closed", turbine("false").State)
	assert.Empty(t, tb.b.Problems())
}

// TestStreamKeyRow shows a stream key's events beyond Hystrix and whether its cuts count
// toward the breaker (stream.cutsCountForHealth), summed over two hosts; a key without
// stream events has no stream row.
func TestStreamKeyRow(t *testing.T) {
	snap := func(cutsCount bool, emit, estab, mid, resumed int64) wire.Snapshot {
		watch := wire.Command{Name: "Watch", Group: "Feeds", ThreadPool: "Feeds",
			CommandCounts: wire.CommandCounts{Emit: emit, EstablishTimeout: estab, MidStreamFailure: mid,
				StreamResumed: resumed, Failure: mid}}
		watch.MetricsRollingStatisticalWindowInMilliseconds = 10000
		watch.StreamCutsCountForHealth = cutsCount
		plain := wire.Command{Name: "Plain", Group: "Feeds", ThreadPool: "Feeds",
			CommandCounts: wire.CommandCounts{Success: 3}}
		plain.StreamCutsCountForHealth = true
		return wire.Snapshot{Commands: []wire.Command{watch, plain}}
	}
	a, b := snap(false, 40, 1, 2, 3), snap(false, 60, 0, 5, 1)
	mux := http.NewServeMux()
	mux.Handle("/hystrix/", dashboard.NewPageHandler())
	mux.Handle("/a.stream", syntheticStream(func() wire.Snapshot { return a }, ""))
	mux.Handle("/b.stream", syntheticStream(func() wire.Snapshot { return b }, ""))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	tb := newTab(t, 1366, 900)
	tb.do(chromedp.Navigate(srv.URL + "/hystrix/?" + url.Values{"stream": {"/a.stream", "/b.stream"}}.Encode()))
	tb.waitFor("both hosts", cardCond("circuits", "Watch", `c.querySelector('[data-field=hosts]').textContent.startsWith('2 hosts')`),
		10*time.Second)
	watch := tb.card("circuits", "Watch")
	assert.Contains(t, watch.Classes, "streams")
	for k, want := range map[string]string{"items": "100", "establishTimeout": "1", "midStream": "7", "resumed": "4",
		"failure": "7", "cutsCount": "no"} {
		assert.Equal(t, want, watch.Fields[k], k)
	}
	plain := tb.card("circuits", "Plain")
	assert.NotContains(t, plain.Classes, "streams")
	assert.Empty(t, plain.Fields["cutsCount"])

	// A Hystrix stream has no such field: its cuts count, as in Hystrix.
	cuts := func(frame string) string {
		return eval[string](tb, `(() => { const d = window.rxhystrixDashboard;
			return d.circuitView(d.sumFrames([`+frame+`])).cutsCount; })()`)
	}
	assert.Equal(t, "yes", cuts(`{type: 'HystrixCommand', name: 'X', rollingCountMidStreamFailure: 1}`))
	assert.Equal(t, "no", cuts(`{type: 'HystrixCommand', name: 'X', propertyValue_streamCutsCountForHealth: false}`))
	assert.Empty(t, tb.b.Problems())
}

// TestHealthCircleScales holds the circle to Hystrix's dashboard: its area grows with the
// request rate per host up to 400/s, its colour goes from green to red with the error
// percentage, and it is red when the breaker is open.
func TestHealthCircleScales(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/hystrix/", dashboard.NewPageHandler())
	mux.Handle("/hystrix.stream", syntheticStream(func() wire.Snapshot { return wire.Snapshot{} }, ""))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	tb := newTab(t, 800, 600)
	tb.do(chromedp.Navigate(srv.URL + "/hystrix/"))
	tb.waitFor("the page's functions", `!!window.rxhystrixDashboard`, 10*time.Second)

	radius := func(rate float64) float64 {
		return eval[float64](tb, fmt.Sprintf(`window.rxhystrixDashboard.circleRadius(%g)`, rate))
	}
	assert.Equal(t, 4.0, radius(0), "a circuit without traffic still shows its colour")
	assert.Equal(t, 14.0, radius(100), "a quarter of 400/s: half the radius range")
	assert.Equal(t, 24.0, radius(400))
	assert.Equal(t, 24.0, radius(4000), "full from 400/s on")
	for _, r := range []float64{1, 10, 50, 100, 200} {
		assert.Less(t, radius(r), radius(r*2), "the area grows with the rate: %g/s", r)
	}

	colour := func(errPct float64, open bool) string {
		return eval[string](tb, fmt.Sprintf(`window.rxhystrixDashboard.healthColour(%g, %t)`, errPct, open))
	}
	assert.Equal(t, "hsl(120, 80%, 36%)", colour(0, false))
	assert.Equal(t, "hsl(120, 80%, 36%)", colour(10, false))
	assert.Equal(t, "hsl(48, 80%, 42%)", colour(25, false))
	assert.Equal(t, "hsl(36, 80%, 43%)", colour(40, false))
	assert.Equal(t, "hsl(0, 80%, 46%)", colour(50, false))
	assert.Equal(t, "hsl(0, 80%, 46%)", colour(100, false))
	assert.Equal(t, "#b3261e", colour(0, true), "open is red whatever the errors")

	assert.Empty(t, tb.b.Problems())
}

// TestStreamLostAndReconnected stops the stream's server under the page and starts it
// again on the same address.
func TestStreamLostAndReconnected(t *testing.T) {
	snap := host(100, 0, 100, 0, 0, 0, 0, 0, 0, wire.Percentiles{}, 1, false, 1, 2, 10, 2, 2)
	mux := http.NewServeMux()
	mux.Handle("/hystrix/", dashboard.NewPageHandler())
	mux.Handle("/hystrix.stream", syntheticStream(func() wire.Snapshot { return snap }, ""))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	serve := func(ln net.Listener) *http.Server {
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		return srv
	}
	srv := serve(ln)

	tb := newTab(t, 1366, 900)
	tb.do(chromedp.Navigate("http://" + addr + "/hystrix/"))
	tb.waitFor("the circuit", cardCond("circuits", "GetUser", "true"), 10*time.Second)
	banner := `document.getElementById('banner')`
	assert.True(t, eval[bool](tb, banner+`.hidden`))

	require.NoError(t, srv.Close()) // closes the listener and the stream's connection
	tb.waitFor("the lost state", `!`+banner+`.hidden`, 10*time.Second)
	assert.Equal(t, "Stream lost, reconnecting: /hystrix.stream", eval[string](tb, banner+`.textContent`))
	assert.True(t, eval[bool](tb, `document.body.classList.contains('lost')`), "the data is dimmed")
	assert.Equal(t, "lost", eval[string](tb, `document.querySelector('#stream-status li').className`))

	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	srv = serve(ln)
	defer srv.Close()
	tb.waitFor("the reconnection", banner+`.hidden && !document.body.classList.contains('lost')`, 15*time.Second)
	assert.Equal(t, "open", eval[string](tb, `document.querySelector('#stream-status li').className`))
}
