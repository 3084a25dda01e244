package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/sse"
)

func TestStreamHeaders(t *testing.T) {
	s, _ := newSampleStream(t)
	c := s.connect()
	h := c.resp.Header
	assert.Equal(t, "text/event-stream;charset=UTF-8", h.Get("Content-Type"))
	assert.Equal(t, "no-cache, no-store, max-age=0, must-revalidate", h.Get("Cache-Control"))
	assert.Equal(t, "no-cache", h.Get("Pragma"))
}

func TestConnectionLimit(t *testing.T) {
	tests := []struct {
		name string
		opts []Option
		max  int
	}{
		{"default", nil, sse.DefaultMaxConnections},
		{"configured", []Option{WithMaxConnections(2)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newSampleStream(t, tt.opts...)
			clients := make([]*streamClient, tt.max)
			for i := range clients {
				clients[i] = s.connect()
			}
			assert.Equal(t, tt.max, s.h.s.Connections())

			resp := s.get(context.Background())
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
			assert.Equal(t, "MaxConcurrentConnections reached: "+strconv.Itoa(tt.max), string(body))
			s.waitReturn()
			assert.Equal(t, tt.max, s.h.s.Connections(), "a refused request takes no slot")

			clients[0].cancel()
			s.waitReturn()
			s.connect() // the freed slot is usable again
		})
	}
}

func TestDisconnectEndsHandler(t *testing.T) {
	s, clk := newSampleStream(t)
	c := s.connect()
	advance(clk, 1, sse.DefaultInterval)
	require.Len(t, c.tick(t), 4)
	clk.BlockUntil(1) // waiting for the next interval

	c.cancel()
	s.waitReturn()
	assert.Zero(t, s.h.s.Connections(), "the slot is freed")
	assert.Zero(t, clk.Pending(), "the interval timer is stopped")
}

// stallWriter is a ResponseWriter whose write number stallAt blocks until release is
// closed or the request ends; it records what was written.
type stallWriter struct {
	ctx     context.Context
	stallAt int
	release chan struct{}
	stalled chan struct{} // closed when the stalled write starts
	err     error         // returned by the stalled write once released (nil: write it)

	mu        sync.Mutex
	hdr       http.Header
	writes    []string
	deadlines []time.Time
}

func newStallWriter(ctx context.Context, stallAt int) *stallWriter {
	return &stallWriter{ctx: ctx, stallAt: stallAt, release: make(chan struct{}),
		stalled: make(chan struct{}), hdr: http.Header{}}
}

func (w *stallWriter) Header() http.Header { return w.hdr }
func (w *stallWriter) WriteHeader(int)     {}
func (w *stallWriter) Flush()              {}

func (w *stallWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	n := len(w.writes) + 1
	w.mu.Unlock()
	if n == w.stallAt {
		close(w.stalled)
		select {
		case <-w.release:
			if w.err != nil {
				return 0, w.err
			}
		case <-w.ctx.Done():
			return 0, w.ctx.Err()
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func (w *stallWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadlines = append(w.deadlines, t)
	return nil
}

func (w *stallWriter) written() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

// serve runs h for w in a goroutine; the returned channel closes when ServeHTTP returns.
func serve(ctx context.Context, h http.Handler, w http.ResponseWriter) <-chan struct{} {
	done := make(chan struct{})
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/hystrix.stream", nil)
	go func() {
		defer close(done)
		h.ServeHTTP(w, r)
	}()
	return done
}

func TestSlowClientNeitherBlocksOthersNorQueues(t *testing.T) {
	s, clk := newSampleStream(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := newStallWriter(ctx, 2) // the opening ping passes, the first interval stalls
	slowDone := serve(ctx, s.h, slow)
	fast := s.connect()

	advance(clk, 2, sse.DefaultInterval)
	<-slow.stalled
	require.Len(t, fast.tick(t), 4)
	for range 3 { // the fast client keeps streaming while the slow one is stuck
		advance(clk, 1, sse.DefaultInterval)
		require.Len(t, fast.tick(t), 4)
	}
	assert.Len(t, slow.written(), 1, "only the opening ping got through")

	close(slow.release)
	advance(clk, 2, sse.DefaultInterval) // both armed: the slow one skipped the missed intervals
	require.Len(t, fast.tick(t), 4)
	require.Eventually(t, func() bool { return len(slow.written()) == 3 }, patience, time.Millisecond)
	w := slow.written()
	assert.Equal(t, epoch.Add(sse.DefaultInterval).UnixMilli(), currentTime(t, w[1]), "the stalled write completes as it was")
	assert.Equal(t, clk.Now().UnixMilli(), currentTime(t, w[2]), "then the current interval, no backlog")

	cancel()
	<-slowDone
	fast.cancel()
	s.waitReturn()
	assert.Zero(t, s.h.s.Connections())
}

// currentTime returns the currentTime of the first frame of one interval's write.
func currentTime(t *testing.T, write string) int64 {
	t.Helper()
	line, _, _ := strings.Cut(write, "\n")
	var obj struct{ CurrentTime int64 }
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &obj))
	return obj.CurrentTime
}

func TestWriteTimeoutDropsStalledClient(t *testing.T) {
	var logs bytes.Buffer
	clk := clock.NewFake(epoch)
	h := newStreamHandler(sampleSnapshot, withClock(clk), WithWriteTimeout(3*time.Second),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	w := newStallWriter(context.Background(), 2)
	w.err = os.ErrDeadlineExceeded
	done := serve(context.Background(), h, w)

	clk.BlockUntil(1)
	before := time.Now()
	clk.Advance(sse.DefaultInterval)
	<-w.stalled
	after := time.Now()
	w.mu.Lock()
	require.Len(t, w.deadlines, 2, "a deadline before every write")
	d := w.deadlines[1]
	w.mu.Unlock()
	assert.False(t, d.Before(before.Add(3*time.Second)) || d.After(after.Add(3*time.Second)),
		"deadline %v is 3s after the write started (between %v and %v)", d, before, after)

	close(w.release) // the socket deadline passes
	<-done
	assert.Zero(t, h.s.Connections())
	assert.True(t, w.deadlines[len(w.deadlines)-1].IsZero(), "the deadline is cleared on the way out")
	assert.Contains(t, logs.String(), "dropping stream client")
	assert.Contains(t, logs.String(), os.ErrDeadlineExceeded.Error())
}

func TestNoWriteTimeout(t *testing.T) {
	clk := clock.NewFake(epoch)
	h := newStreamHandler(sampleSnapshot, withClock(clk), WithWriteTimeout(0))
	ctx, cancel := context.WithCancel(context.Background())
	w := newStallWriter(ctx, 0)
	done := serve(ctx, h, w)
	clk.BlockUntil(1)
	cancel()
	<-done
	assert.Empty(t, w.deadlines)
	assert.Len(t, w.written(), 1)
}

// plainWriter cannot flush, so it cannot stream.
type plainWriter struct{ hdr http.Header }

func (w *plainWriter) Header() http.Header         { return w.hdr }
func (w *plainWriter) WriteHeader(int)             {}
func (w *plainWriter) Write(p []byte) (int, error) { return len(p), nil }

func TestWriterWithoutFlushIsDropped(t *testing.T) {
	var logs bytes.Buffer
	h := newStreamHandler(sampleSnapshot, withClock(clock.NewFake(epoch)),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	h.ServeHTTP(&plainWriter{hdr: http.Header{}}, httptest.NewRequest(http.MethodGet, "/hystrix.stream", nil))
	assert.Zero(t, h.s.Connections())
	assert.Contains(t, logs.String(), "flush")
}

func TestOptions(t *testing.T) {
	def := newOptions(sse.DefaultInterval, nil)
	assert.Equal(t, sse.DefaultInterval, def.Interval)
	assert.Equal(t, sse.DefaultMaxConnections, def.MaxConns)
	assert.Equal(t, sse.DefaultWriteTimeout, def.WriteTimeout)
	assert.Equal(t, clock.System(), def.Clock)
	assert.Equal(t, slog.Default(), def.Log)

	ignored := newOptions(sse.DefaultInterval, []Option{WithInterval(0), WithMaxConnections(0), withClock(nil),
		WithLogger(nil), WithWriteTimeout(-time.Second)})
	assert.Equal(t, sse.DefaultInterval, ignored.Interval)
	assert.Equal(t, sse.DefaultMaxConnections, ignored.MaxConns)
	assert.Equal(t, clock.System(), ignored.Clock)
	assert.Equal(t, slog.Default(), ignored.Log)
	assert.Zero(t, ignored.WriteTimeout, "negative disables")
}

func TestClientLeavingMidWriteIsNotLogged(t *testing.T) {
	var logs bytes.Buffer
	clk := clock.NewFake(epoch)
	h := newStreamHandler(sampleSnapshot, withClock(clk),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	ctx, cancel := context.WithCancel(context.Background())
	w := newStallWriter(ctx, 2)
	done := serve(ctx, h, w)
	advance(clk, 1, sse.DefaultInterval)
	<-w.stalled
	cancel() // the write fails because the client left
	<-done
	assert.Zero(t, h.s.Connections())
	assert.Empty(t, logs.String())
}

// deadlineRefuser is a flushable writer whose connection refuses write deadlines.
type deadlineRefuser struct{ plainWriter }

func (deadlineRefuser) Flush()                           {}
func (deadlineRefuser) SetWriteDeadline(time.Time) error { return errors.New("connection closed") }

func TestDeadlineErrorDropsClient(t *testing.T) {
	var logs bytes.Buffer
	h := newStreamHandler(sampleSnapshot, withClock(clock.NewFake(epoch)),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	h.ServeHTTP(&deadlineRefuser{plainWriter{hdr: http.Header{}}}, httptest.NewRequest(http.MethodGet, "/hystrix.stream", nil))
	assert.Zero(t, h.s.Connections())
	assert.Contains(t, logs.String(), "connection closed")
}
