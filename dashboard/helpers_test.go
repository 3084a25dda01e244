package dashboard

import (
	"bufio"
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/clock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var update = flag.Bool("update", false, "rewrite the golden files in testdata/dashboard")

// patience bounds the real-time waits for other goroutines; it only matters when a test
// fails, so it is generous (CI machines can be slow under -race).
const patience = 30 * time.Second

// epoch is the fake clock's start: currentTime values in golden files derive from it.
var epoch = time.UnixMilli(1_700_000_000_000)

// testServer serves one Handler over HTTP and records each return of ServeHTTP.
type testServer struct {
	t        *testing.T
	h        *Handler
	srv      *httptest.Server
	returned chan struct{}
}

func newTestServer(t *testing.T, h *Handler) *testServer {
	s := &testServer{t: t, h: h, returned: make(chan struct{}, 16)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		s.returned <- struct{}{}
	}))
	t.Cleanup(s.srv.Close) // runs after the clients' cleanups, which end their requests
	return s
}

// get issues a request whose response the caller must close.
func (s *testServer) get(ctx context.Context) *http.Response {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.srv.URL+"/hystrix.stream", nil)
	require.NoError(s.t, err)
	resp, err := s.srv.Client().Do(req)
	require.NoError(s.t, err)
	return resp
}

// waitReturn fails unless a ServeHTTP call returns soon.
func (s *testServer) waitReturn() {
	s.t.Helper()
	select {
	case <-s.returned:
	case <-time.After(patience):
		s.t.Fatal("handler did not return")
	}
}

// streamClient is one open stream.
type streamClient struct {
	resp   *http.Response
	rd     *bufio.Reader
	cancel context.CancelFunc
}

// connect opens a stream and reads the opening ping.
func (s *testServer) connect() *streamClient {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp := s.get(ctx)
	s.t.Cleanup(func() { cancel(); resp.Body.Close() })
	require.Equal(s.t, http.StatusOK, resp.StatusCode)
	c := &streamClient{resp: resp, rd: bufio.NewReader(resp.Body), cancel: cancel}
	require.Equal(s.t, "ping: \n\n", c.rawTick(s.t), "a stream opens with a ping")
	return c
}

// rawTick returns the bytes of one interval: its data frames up to and including the ping.
func (c *streamClient) rawTick(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for {
		line, err := c.rd.ReadString('\n')
		require.NoError(t, err)
		blank, err := c.rd.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "\n", blank, "every frame ends with a blank line, after %q", line)
		b.WriteString(line + blank)
		switch {
		case line == "ping: \n":
			return b.String()
		case !strings.HasPrefix(line, "data: "):
			t.Fatalf("unexpected line %q", line)
		}
	}
}

// tick returns the JSON payloads of one interval.
func (c *streamClient) tick(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(c.rawTick(t), "\n") {
		if p, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, p)
		}
	}
	return out
}

// advance waits until n timers are armed (one per streaming connection), then moves the
// clock by d.
func advance(clk *clock.Fake, n int, d time.Duration) {
	clk.BlockUntil(n)
	clk.Advance(d)
}

// onlyFrame streams h, made with the fake clock clk, for one of its intervals and
// returns the one frame it writes.
func onlyFrame(t *testing.T, h *Handler, clk *clock.Fake) string {
	t.Helper()
	c := newTestServer(t, h).connect()
	advance(clk, 1, h.s.Settings().Interval)
	frames := c.tick(t)
	require.Len(t, frames, 1)
	return frames[0]
}

// golden compares got with testdata/dashboard/name, or rewrites it with -update. Either
// way every frame must have Hystrix's shape, so -update cannot bless a wrong one.
func golden(t *testing.T, name, got string) {
	t.Helper()
	assertFrames(t, got)
	path := filepath.Join("..", "testdata", "dashboard", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./dashboard -run %s -update to create it", t.Name())
	assert.Equal(t, string(want), got)
}
