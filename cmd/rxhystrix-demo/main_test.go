package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunServesTheStreamPrintsTheTableAndEndsByItself runs the demo for a bounded time:
// it must answer on /hystrix.stream with command frames and on /metrics with every
// command's counters, print the table every second with every command key, and return
// once its time is up with nothing left running, having told at its start what each
// dependency does on purpose.
func TestRunServesTheStreamPrintsTheTableAndEndsByItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, 100, false, fleetConfig{}, &out) }()

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ln.Addr().String()+"/hystrix.stream", nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	assert.Equal(t, "text/event-stream;charset=UTF-8", resp.Header.Get("Content-Type"))
	frame := firstDataFrame(t, resp)
	resp.Body.Close()
	assert.Contains(t, frame, `"type":"HystrixCommand"`)
	page, err := client.Get("http://" + ln.Addr().String() + dashboardPath)
	require.NoError(t, err)
	page.Body.Close()
	assert.Equal(t, http.StatusOK, page.StatusCode, "the dashboard page")

	metrics := get(t, client, "http://"+ln.Addr().String()+"/metrics")
	for _, key := range []string{"GetUser", "CheckInventory", "GetRecommendations", "AuthorizePayment"} {
		assert.Contains(t, metrics, `hystrix_command_events_total{command="`+key+`",event="success"`)
	}

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the demo did not end after its duration")
	}
	printed := out.String()
	assert.Contains(t, printed, "rxhystrix demo: every dependency misbehaves on purpose; the errors in the table are the demo's:\n")
	for _, key := range []string{"GetUser", "CheckInventory", "GetRecommendations", "AuthorizePayment"} {
		assert.Regexp(t, "\n  "+key+" +[a-z0-9]", printed, "what %s does on purpose, told at the start", key)
	}
	assert.Contains(t, printed, "--- 1s ---")
	assert.NotContains(t, printed, `"SpanContext"`, "no traces unless asked")
	assert.Contains(t, printed, "rxhystrix demo: dashboard on http://"+ln.Addr().String()+dashboardPath+"\n")
	assert.True(t, strings.HasSuffix(printed, "rxhystrix demo: stopped\n"), printed)
}

// get returns the body of a GET of url.
func get(t *testing.T, client *http.Client, url string) string {
	t.Helper()
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// span is what the test reads of a span the stdout exporter printed.
type span struct {
	Name        string
	SpanContext struct{ SpanID string }
	Parent      struct{ SpanID string }
}

// TestRunPrintsTracesWhenAsked runs the demo with traces: every command execution is a
// span printed to out, a child of its page's span.
func TestRunPrintsTracesWhenAsked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var out syncbuf.Buffer
	require.NoError(t, run(ctx, ln, 20, true, fleetConfig{}, &out))

	pages := map[string]bool{}
	var commands []span
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // the table
		}
		var s span
		require.NoError(t, json.Unmarshal([]byte(line), &s), line)
		if s.Name == "page" {
			pages[s.SpanContext.SpanID] = true
		} else {
			commands = append(commands, s)
		}
	}
	require.NotEmpty(t, pages)
	names := map[string]bool{}
	for _, c := range commands {
		names[c.Name] = true
		assert.True(t, pages[c.Parent.SpanID], "%s is a child of a page", c.Name)
	}
	for _, key := range []string{"GetUser", "CheckInventory", "GetRecommendations", "AuthorizePayment"} {
		assert.True(t, names[key], key)
	}
}

func firstDataFrame(t *testing.T, resp *http.Response) string {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			return line
		}
	}
	t.Fatalf("no data frame: %v", sc.Err())
	return ""
}

func TestStartRejectsBadFlags(t *testing.T) {
	assert.ErrorContains(t, start("127.0.0.1:0", time.Second, 0, false, fleetConfig{}), "-rate must be positive")
	assert.ErrorContains(t, start("127.0.0.1:0", -time.Second, 10, false, fleetConfig{}), "-duration must not be negative")
	assert.Error(t, start("not an address", time.Second, 10, false, fleetConfig{}))
}
