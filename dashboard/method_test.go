package dashboard

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

func TestOnlyGetIsStreamed(t *testing.T) {
	s, _ := newSampleStream(t)
	for _, method := range []string{http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodOptions, http.MethodPatch} {
		t.Run(method, func(t *testing.T) {
			req, err := http.NewRequest(method, s.srv.URL+"/hystrix.stream", strings.NewReader("x"))
			require.NoError(t, err)
			resp, err := s.srv.Client().Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
			assert.Equal(t, http.MethodGet, resp.Header.Get("Allow"))
			assert.NotContains(t, resp.Header.Get("Content-Type"), "event-stream")
			if method != http.MethodHead {
				assert.Equal(t, "method not allowed: "+method+"\n", string(body))
			}
			s.waitReturn()
			assert.Zero(t, s.h.s.Connections())
		})
	}
}

// TestHeadRequestsOnKeepAliveHoldNoSlot sends more HEAD requests than there are slots,
// over one kept-alive connection, and then streams with GET.
func TestHeadRequestsOnKeepAliveHoldNoSlot(t *testing.T) {
	s, _ := newSampleStream(t)
	for range sse.DefaultMaxConnections {
		req, err := http.NewRequest(http.MethodHead, s.srv.URL+"/hystrix.stream", nil)
		require.NoError(t, err)
		resp, err := s.srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	}
	assert.Zero(t, s.h.s.Connections())
	s.connect() // a slot is free
}

// TestUnreadClientIsDroppedAndLogged streams over real HTTP to a client that sends its
// request and never reads: once the socket buffers are full, the write deadline drops it
// and the drop is logged.
func TestUnreadClientIsDroppedAndLogged(t *testing.T) {
	var logs syncbuf.Buffer
	clk := clock.NewFake(epoch)
	big := bigSnapshot(2000) // about 4 MB an interval: more than the socket buffers hold
	h := newStreamHandler(func() wire.Snapshot { return big }, withClock(clk),
		WithWriteTimeout(100*time.Millisecond), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	s := newTestServer(t, h)

	conn, err := net.Dial("tcp", s.srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "GET /hystrix.stream HTTP/1.1\r\nHost: test\r\n\r\n")
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for returned := false; !returned; {
		select {
		case <-s.returned:
			returned = true
		case <-ctx.Done():
			t.Fatal("the unread client was never dropped")
		case <-time.After(time.Millisecond):
			if clk.Pending() == 1 { // waiting for its next interval
				clk.Advance(sse.DefaultInterval)
			}
		}
	}
	assert.Zero(t, h.s.Connections())
	assert.Contains(t, logs.String(), "dropping stream client")
	assert.Contains(t, logs.String(), "i/o timeout")
}

// bigSnapshot is n copies of the sample's first command under distinct names.
func bigSnapshot(n int) wire.Snapshot {
	sample := sampleSnapshot()
	s := wire.Snapshot{Commands: make([]wire.Command, n)}
	for i := range s.Commands {
		s.Commands[i] = sample.Commands[0]
		s.Commands[i].Name = "Command" + strings.Repeat("x", i%50) + string(rune('A'+i%26))
	}
	return s
}
