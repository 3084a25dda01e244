//go:build e2e

package e2e

import (
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
)

// host returns one instance's snapshot: the same command and pool on every host, with
// numbers that make each sum and average exact.
func host(requests, errPct, success, failure, timeout, short, poolRejected, semRejected, bad int64,
	lat dashboard.Percentiles, mean int64, open bool, active, poolSize, executions int) dashboard.Snapshot {
	cmd := dashboard.Command{
		Name: "GetUser", Group: "Users", ThreadPool: "Users", IsCircuitBreakerOpen: open,
		ErrorPercentage: int(errPct), RequestCount: requests, LatencyExecute: lat, LatencyExecuteMean: mean,
		CommandCounts: dashboard.CommandCounts{Success: success, Failure: failure, Timeout: timeout,
			ShortCircuited: short, ThreadPoolRejected: poolRejected, SemaphoreRejected: semRejected, BadRequests: bad},
	}
	cmd.MetricsRollingStatisticalWindowInMilliseconds = 10000
	return dashboard.Snapshot{
		Commands: []dashboard.Command{cmd},
		ThreadPools: []dashboard.ThreadPool{{Name: "Users", CurrentActiveCount: active, CurrentPoolSize: poolSize,
			RollingCountThreadsExecuted: int64(executions), RollingMaxActiveThreads: int64(poolSize),
			PropertyValueMetricsRollingStatisticalWindow: 10000}},
	}
}

// TestSeveralStreamsSummedLikeTurbine serves two instances' streams, the second on
// another origin, and shows them summed on one page.
func TestSeveralStreamsSummedLikeTurbine(t *testing.T) {
	a := host(100, 10, 90, 6, 4, 0, 2, 0, 0, dashboard.Percentiles{0, 0, 10, 0, 20, 0, 40, 50, 0}, 12, false, 2, 4, 40)
	a.Commands = append(a.Commands, dashboard.Command{Name: "OnlyOnA", Group: "A", ThreadPool: "A"})
	b := host(300, 30, 200, 50, 40, 10, 0, 3, 2, dashboard.Percentiles{0, 0, 21, 0, 41, 0, 81, 101, 0}, 25, true, 3, 6, 60)

	pageMux := http.NewServeMux()
	pageMux.Handle("/hystrix/", dashboard.NewPageHandler())
	pageMux.Handle("/hystrix.stream", dashboard.NewStreamHandler(dashboard.ProviderFunc(func() dashboard.Snapshot { return a })))
	pageSrv := httptest.NewServer(pageMux)
	t.Cleanup(pageSrv.Close) // after the tab's cleanup, which ends the streams it holds
	other := httptest.NewServer(dashboard.NewStreamHandler(dashboard.ProviderFunc(func() dashboard.Snapshot { return b }),
		dashboard.WithAllowOrigin(pageSrv.URL)))
	t.Cleanup(other.Close)

	tb := newTab(t, 1366, 900)
	q := url.Values{"stream": {"/hystrix.stream", other.URL + "/hystrix.stream"}}
	tb.do(chromedp.Navigate(pageSrv.URL + "/hystrix/?" + q.Encode()))
	tb.waitFor("both hosts", cardCond("circuits", "GetUser", `c.querySelector('[data-field=hosts]').textContent.startsWith('2 hosts')`),
		10*time.Second)

	// Hystrix's dashboard after Turbine: counts summed; error %, latencies and the window
	// averaged over reportingHosts; rate = summed requests / averaged window.
	assert.Equal(t, map[string]string{
		"keys": "Users · pool Users", "hosts": "2 hosts, 20.0/s each", "state": "Open on 1 of 2",
		"rate": "40.0", "errorPct": "20.0", "since": "",
		"success": "290", "shortCircuited": "10", "badRequest": "2", "timeout": "44", "rejected": "5", "failure": "56",
		"p50": "15", "p90": "30", "p99": "60", "p995": "75", "mean": "18",
	}, tb.card("circuits", "GetUser").Fields)
	assert.Contains(t, tb.card("circuits", "GetUser").Classes, "partial")
	assert.Equal(t, "1 host", tb.card("circuits", "OnlyOnA").Fields["hosts"])
	assert.Equal(t, map[string]string{
		"hosts": "2 hosts", "rate": "10.0", "active": "5", "queued": "0", "poolSize": "10", "maxActive": "10",
		"executions": "100", "rejections": "0",
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
				isCircuitBreakerOpen: `+open+`, requestCount: 600, errorPercentage: 30, latencyExecute: {'99': 91},
				latencyExecute_mean: 31, propertyValue_metricsRollingStatisticalWindowInMilliseconds: 30000}])); })()`)
	}
	assert.Equal(t, view{Hosts: 3, Rate: 60, PerHost: 20, ErrPct: 10, State: "Open on 1 of 3", P99: 30, Mean: 10},
		turbine(`{'true': 1, 'false': 2}`))
	assert.Equal(t, "Open", turbine("3").State)
	assert.Equal(t, "Closed", turbine("false").State)

	assert.Empty(t, tb.b.Problems())
}

// TestStreamLostAndReconnected stops the stream's server under the page and starts it
// again on the same address.
func TestStreamLostAndReconnected(t *testing.T) {
	snap := host(100, 0, 100, 0, 0, 0, 0, 0, 0, dashboard.Percentiles{}, 1, false, 1, 2, 10)
	mux := http.NewServeMux()
	mux.Handle("/hystrix/", dashboard.NewPageHandler())
	mux.Handle("/hystrix.stream", dashboard.NewStreamHandler(dashboard.ProviderFunc(func() dashboard.Snapshot { return snap })))
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
