package main

import (
	"bufio"
	"context"
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
// it must answer on /hystrix.stream with command frames, print the table every second
// with every command key, and return once its time is up with nothing left running.
func TestRunServesTheStreamPrintsTheTableAndEndsByItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2500*time.Millisecond)
	defer cancel()
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, 100, &out) }()

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

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the demo did not end after its duration")
	}
	printed := out.String()
	for _, key := range []string{"GetUser", "CheckInventory", "GetRecommendations", "AuthorizePayment"} {
		assert.Contains(t, printed, key)
	}
	assert.Contains(t, printed, "--- 1s ---")
	assert.Contains(t, printed, "rxhystrix demo: dashboard on http://"+ln.Addr().String()+dashboardPath+"\n")
	assert.True(t, strings.HasSuffix(printed, "rxhystrix demo: stopped\n"), printed)
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
	assert.ErrorContains(t, start("127.0.0.1:0", time.Second, 0), "-rate must be positive")
	assert.ErrorContains(t, start("127.0.0.1:0", -time.Second, 10), "-duration must not be negative")
	assert.Error(t, start("not an address", time.Second, 10))
}
