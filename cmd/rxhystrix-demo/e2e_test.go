//go:build e2e

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/e2eproc"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

// demoRun is how long the demo runs: CheckInventory fails from 5 s to 20 s (deps.go,
// services.go); its breaker opens within a second of that and closes at the first trial
// after 20 s, at most one 5 s sleep window later.
const demoRun = 32 * time.Second

// TestE2EPrometheus scrapes the demo every second with a real Prometheus server through
// CheckInventory's failure window, then asks Prometheus' HTTP API what it saw: every
// command's event rate above 0, the CheckInventory breaker open during the window and
// closed after it. On the way promtool checks the demo's /metrics.
func TestE2EPrometheus(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	demo := ln.Addr().String()
	prom := startPrometheus(t, demo)

	ctx, cancel := context.WithTimeout(context.Background(), demoRun)
	defer cancel()
	var out syncbuf.Buffer
	done := make(chan error, 1)
	began := time.Now()
	go func() { done <- run(ctx, ln, 50, false, fleetConfig{}, &out) }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cancel()
			<-done
		}
	})

	checkMetrics(t, "http://"+demo+"/metrics") // once the breaker is open: every kind of series
	require.NoError(t, <-done)
	stopped = true
	ended := time.Now()

	up := prom.query(t, `up{job="demo"}`, ended.Add(-2*time.Second))
	require.Len(t, up, 1)
	assert.Equal(t, 1.0, up[0].value, "Prometheus scraped the demo")

	rates := prom.query(t, `sum by (command) (rate(hystrix_command_events_total[10s]))`, ended.Add(-2*time.Second))
	seen := map[string]float64{}
	for _, r := range rates {
		seen[r.metric["command"]] = r.value
	}
	for _, key := range []string{"GetUser", "CheckInventory", "GetRecommendations", "AuthorizePayment"} {
		assert.Positive(t, seen[key], "event rate of %s", key)
	}

	open := prom.queryRange(t, `hystrix_circuit_breaker_state{command="CheckInventory",state="open"}`, began, ended)
	var openAt []time.Duration
	for _, p := range open {
		if p.value == 1 {
			openAt = append(openAt, p.at.Sub(began))
		}
	}
	require.NotEmpty(t, openAt, "CheckInventory's breaker never seen open:\n%s", out.String())
	assert.Greater(t, openAt[0], 5*time.Second, "opened only once the dependency failed")
	assert.Less(t, openAt[0], 20*time.Second, "opened during the failure window")
	closed := prom.queryRange(t, `hystrix_circuit_breaker_state{command="CheckInventory",state="closed"}`, began, ended)
	require.NotEmpty(t, closed)
	last := closed[len(closed)-1]
	assert.Greater(t, last.at.Sub(began), 27*time.Second)
	assert.Equal(t, 1.0, last.value, "closed again after the window:\n%s", out.String())
	t.Logf("CheckInventory's breaker seen open from %s to %s, closed at %s; event rates %v",
		openAt[0], openAt[len(openAt)-1], last.at.Sub(began).Round(time.Second), seen)

	for _, q := range boardQueries(t) {
		assert.NotEmpty(t, prom.query(t, q, ended.Add(-2*time.Second)), "docs/prometheus.md query %s", q)
	}

	transitions := prom.query(t, `hystrix_circuit_breaker_transitions_total{command="CheckInventory",from="closed",to="open"}`, ended.Add(-2*time.Second))
	require.Len(t, transitions, 1)
	assert.GreaterOrEqual(t, transitions[0].value, 1.0)

	// What docs/development.md promises the user of make demo: the table shows the breaker open and
	// closed again within the first half minute.
	opened, closedAt := tableBreaker(out.String(), "CheckInventory")
	require.Positive(t, opened, "the table never showed CheckInventory OPEN:\n%s", out.String())
	require.Positive(t, closedAt, "the table never showed CheckInventory CLOSED after OPEN:\n%s", out.String())
	assert.LessOrEqual(t, closedAt, 30*time.Second, "open and closed again within the first half minute")
	t.Logf("the table showed CheckInventory OPEN at %s, CLOSED again at %s", opened, closedAt)
}

// tableBreaker returns the first elapsed time (a "--- 12s ---" heading) at which the
// printed table showed key's breaker OPEN, and the first after it that showed it CLOSED;
// 0 for what it never showed.
func tableBreaker(out, key string) (opened, closed time.Duration) {
	var at time.Duration
	for _, line := range strings.Split(out, "\n") {
		if h, ok := strings.CutPrefix(line, "--- "); ok {
			if d, err := time.ParseDuration(strings.TrimSuffix(h, " ---")); err == nil {
				at = d
			}
			continue
		}
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != key {
			continue
		}
		switch {
		case opened == 0 && slices.Contains(fields, "OPEN"):
			opened = at
		case opened != 0 && slices.Contains(fields, "CLOSED"):
			return opened, at
		}
	}
	return opened, 0
}

// boardQueries returns the PromQL queries of docs/prometheus.md's board (its promql block).
func boardQueries(t *testing.T) []string {
	page, err := os.ReadFile("../../docs/prometheus.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(page), "```promql\n")
	require.True(t, ok, "no promql block in docs/prometheus.md")
	block, _, _ = strings.Cut(block, "```")
	var queries []string
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		if !strings.HasPrefix(line, "#") {
			queries = append(queries, line)
		}
	}
	require.Len(t, queries, 5)
	return queries
}

// checkMetrics waits until the body of url shows CheckInventory's breaker open and runs
// promtool check metrics on it: it must find nothing.
func checkMetrics(t *testing.T, url string) {
	t.Helper()
	const open = `hystrix_circuit_breaker_state{command="CheckInventory",group="Inventory",state="open",thread_pool="Inventory"} 1`
	var body bytes.Buffer
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(body.String(), open); {
		require.True(t, time.Now().Before(deadline), "CheckInventory's breaker not open in /metrics:\n%s", body.String())
		time.Sleep(500 * time.Millisecond)
		body.Reset()
		resp, err := http.Get(url)
		require.NoError(t, err)
		_, err = body.ReadFrom(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
	}
	cmd := exec.Command("promtool", "check", "metrics")
	cmd.Stdin = &body
	report, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s", report)
	assert.Empty(t, string(report), "promtool has nothing to complain about")
}

// promServer is a Prometheus server started for the test.
type promServer struct{ base string }

var addrInUse = regexp.MustCompile(`address already in use`)

// startPrometheus starts Debian's prometheus on a free port of 127.0.0.1 with a
// temporary config that scrapes target every second and a temporary storage directory,
// waits until it is ready and stops it when the test ends. A port is free only a moment
// before Prometheus binds it: when another process took it first, it tries another (at
// most 5 times). A failing test logs what each Prometheus did (e2eproc).
func startPrometheus(t *testing.T, target string) promServer {
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: demo
    static_configs:
      - targets: ['%s']
`, target)), 0o644))
	for attempt := 1; ; attempt++ {
		storage := filepath.Join(t.TempDir(), "data")
		p := promServer{base: "http://" + freeAddr(t)}
		proc := e2eproc.Start(t, "prometheus", exec.Command("prometheus", "--config.file="+config,
			"--storage.tsdb.path="+storage, "--web.listen-address="+strings.TrimPrefix(p.base, "http://"),
			"--log.level=warn"))
		err := p.awaitReady(proc, storage)
		if err == nil {
			return p
		}
		if !errors.Is(err, errPortTaken) || attempt == 5 {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v", attempt, err)
	}
}

// errPortTaken is the error of a start on a port that another process took first.
var errPortTaken = errors.New("port taken")

// awaitReady returns once the Prometheus at p.base is ready and is the one started as
// proc (it stores its data in storage); it fails when proc ends first, another server
// answers there, or it is not ready within a minute.
func (p promServer) awaitReady(proc *e2eproc.Process, storage string) error {
	for deadline := time.Now().Add(time.Minute); ; {
		var flags map[string]string
		switch err := p.apiGet("/api/v1/status/flags", nil, &flags); {
		case err == nil && flags["storage.tsdb.path"] != storage:
			proc.Stop()
			return fmt.Errorf("prometheus on %s: %w: another server answers there", p.base, errPortTaken)
		case err == nil && p.ready():
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("prometheus on %s not ready within a minute", p.base)
		}
		select {
		case <-proc.Exited():
			if proc.Printed(addrInUse) {
				return fmt.Errorf("prometheus on %s: %w", p.base, errPortTaken)
			}
			return fmt.Errorf("prometheus on %s ended before it was ready", p.base)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ready reports whether Prometheus says it is ready to serve queries.
func (p promServer) ready() bool {
	resp, err := http.Get(p.base + "/-/ready")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// freeAddr returns a 127.0.0.1 address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// sample is one value of a series in a query result.
type sample struct {
	metric map[string]string
	at     time.Time
	value  float64
}

// query evaluates an instant query at time at.
func (p promServer) query(t *testing.T, q string, at time.Time) []sample {
	var res []struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	p.get(t, "/api/v1/query", url.Values{"query": {q}, "time": {unix(at)}}, &res)
	var out []sample
	for _, r := range res {
		out = append(out, point(t, r.Metric, r.Value))
	}
	return out
}

// queryRange evaluates q every second from start to end and returns the points of its
// one series, oldest first.
func (p promServer) queryRange(t *testing.T, q string, start, end time.Time) []sample {
	var res []struct {
		Metric map[string]string `json:"metric"`
		Values [][2]any          `json:"values"`
	}
	p.get(t, "/api/v1/query_range", url.Values{"query": {q}, "start": {unix(start)}, "end": {unix(end)}, "step": {"1"}}, &res)
	require.Len(t, res, 1, "series of %s", q)
	var out []sample
	for _, v := range res[0].Values {
		out = append(out, point(t, res[0].Metric, v))
	}
	return out
}

func (p promServer) get(t *testing.T, path string, params url.Values, result any) {
	t.Helper()
	var data struct {
		Result json.RawMessage `json:"result"`
	}
	require.NoError(t, p.apiGet(path, params, &data))
	require.NoError(t, json.Unmarshal(data.Result, result))
}

// apiGet calls Prometheus' HTTP API and decodes the data of its answer into data.
func (p promServer) apiGet(path string, params url.Values, data any) error {
	resp, err := http.Get(p.base + path + "?" + params.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s %v: %s", path, params, body.Error)
	}
	return json.Unmarshal(body.Data, data)
}

func point(t *testing.T, metric map[string]string, v [2]any) sample {
	ts, ok := v[0].(float64)
	require.True(t, ok, "timestamp %v", v[0])
	s, ok := v[1].(string)
	require.True(t, ok, "value %v", v[1])
	f, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return sample{metric: metric, at: time.Unix(0, int64(ts*1e9)), value: f}
}

func unix(at time.Time) string {
	return strconv.FormatFloat(float64(at.UnixNano())/1e9, 'f', 3, 64)
}
