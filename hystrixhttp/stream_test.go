package hystrixhttp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// chunked is how chunkServer answers: after how many chunks it stalls (silent, open until
// the client leaves) or cuts the connection (no final chunk), -1 for never; every is the
// pause between chunks; held, when set, holds the response headers until the client
// leaves and is told each request that arrives.
type chunked struct {
	total, stall, cut int
	every             time.Duration
	held              chan struct{}
}

// chunkServer serves numbered lines "chunk i\n" on 127.0.0.1, each flushed as a chunk of
// its own.
func chunkServer(t *testing.T, c chunked) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.held != nil {
			c.held <- struct{}{}
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for i := 0; i < c.total; i++ {
			switch i {
			case c.stall:
				<-r.Context().Done()
				return
			case c.cut:
				panic(http.ErrAbortHandler)
			}
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush()
			select {
			case <-time.After(c.every):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// streamClient is an http.Client through a StreamTransport of key "S" on e with the
// property pairs kv.
func streamClient(t *testing.T, e *cmdtest.Env, kv ...string) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(base.CloseIdleConnections)
	return &http.Client{Transport: &StreamTransport{Base: base, Setter: e.Setter("S", kv...)}}
}

// keyEvents returns key's non-zero cumulative event counts by name, once it settled.
//
// It waits for the stream's terminal event to be counted: an execution gives its permit
// back (Settled) a moment before its completion reaches the counters, and a completion
// counted after the tick would be left out (the flake of the cancelled mid-body stream
// under load).
func keyEvents(t *testing.T, e *cmdtest.Env, key string) map[string]int64 {
	t.Helper()
	e.Settled(t, key)
	m := e.RT.Metrics().Command(key)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		e.Tick(time.Second)
		counts, ended := map[string]int64{}, false
		for _, ev := range metrics.AllEventTypes() {
			if n := m.CumulativeCount(ev); n != 0 {
				counts[ev.String()] = n
				ended = ended || ev.IsTerminal()
			}
		}
		if ended || time.Now().After(deadline) {
			return counts
		}
	}
}

// A chunked body read to its end is one SUCCESS, whatever the number of chunks, under
// either isolation.
func TestStreamTransportBodyToTheEndIsASuccess(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := cmdtest.New(t)
			srv := chunkServer(t, chunked{total: 5, stall: -1, cut: -1})
			resp, err := streamClient(t, e, "stream.idleTimeoutInMilliseconds", "1000",
				"execution.isolation.strategy", iso).Get(srv.URL)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, "chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n", string(body))
			assert.Equal(t, map[string]int64{"SUCCESS": 1}, keyEvents(t, e, "S"))
		})
	}
}

// A body cut after some chunks is a FAILURE marked MID_STREAM_FAILURE, never a SUCCESS;
// one cut before its first chunk is a plain FAILURE, like a unary call's.
func TestStreamTransportCutBody(t *testing.T) {
	for cut, want := range map[int]map[string]int64{
		3: {"FAILURE": 1, "MID_STREAM_FAILURE": 1},
		0: {"FAILURE": 1},
	} {
		t.Run(fmt.Sprint("after ", cut), func(t *testing.T) {
			e := cmdtest.New(t)
			srv := chunkServer(t, chunked{total: 10, stall: -1, cut: cut})
			resp, err := streamClient(t, e).Get(srv.URL)
			require.NoError(t, err)
			defer resp.Body.Close()
			s := bufio.NewScanner(resp.Body)
			lines := 0
			for s.Scan() {
				assert.Equal(t, fmt.Sprintf("chunk %d", lines), s.Text())
				lines++
			}
			assert.ErrorIs(t, s.Err(), io.ErrUnexpectedEOF, "the cut reaches the reader")
			assert.Equal(t, cut, lines)
			want["FALLBACK_MISSING"], want["EXCEPTION_THROWN"] = 1, 1
			assert.Equal(t, want, keyEvents(t, e, "S"))
		})
	}
}

// A stalled body ends at the idle limit: Read returns the limit's error, the stream is a
// FAILURE marked MID_STREAM_FAILURE and IDLE_TIMEOUT, and the request ends on the wire.
func TestStreamTransportIdleLimitOutcome(t *testing.T) {
	e := cmdtest.New(t)
	srv := chunkServer(t, chunked{total: 10, stall: 2, cut: -1})
	resp, err := streamClient(t, e, "stream.idleTimeoutInMilliseconds", "50").Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		select {
		case err := <-done:
			assert.ErrorIs(t, err, command.ErrStreamIdleTimeout)
			assert.Equal(t, map[string]int64{"FAILURE": 1, "MID_STREAM_FAILURE": 1, "IDLE_TIMEOUT": 1,
				"FALLBACK_MISSING": 1, "EXCEPTION_THROWN": 1},
				keyEvents(t, e, "S"))
			return
		case <-time.After(time.Millisecond):
			require.True(t, time.Now().Before(deadline), "the stalled read never ended")
			e.Clock.Advance(10 * time.Millisecond)
		}
	}
}

// 100 stalled chunked bodies on the real clock are each detected at the idle limit, never
// before it; the lateness is logged (a busy machine adds to it). The idle clock starts
// as a Read starts waiting, so each body's lateness is measured from the start of the
// Read that failed (a reader measuring from its last item would see the detection early
// whenever the machine delays it between that item and its next Read).
func TestStreamTransportStalledBodiesEndAtTheIdleLimit(t *testing.T) {
	const n, idle = 100, 50 * time.Millisecond
	srv := chunkServer(t, chunked{total: 10, stall: 3, cut: -1})
	base := &http.Transport{MaxIdleConnsPerHost: n}
	defer base.CloseIdleConnections()
	c := &http.Client{Transport: &StreamTransport{Base: base, Setter: sseSetter(t, "stream.idleTimeoutInMilliseconds", "50")}}
	late := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, err := c.Get(srv.URL)
			if !assert.NoError(t, err) {
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, 64)
			for {
				began := time.Now()
				if _, err := resp.Body.Read(buf); err != nil {
					assert.ErrorIs(t, err, command.ErrStreamIdleTimeout)
					late[i] = time.Since(began) - idle
					return
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(late)
	t.Logf("%d stalled chunked bodies, idle limit %v: detected late by %v median, %v p99, %v max",
		n, idle, late[n/2], late[n-1-n/100], late[n-1])
	assert.GreaterOrEqual(t, late[0], -time.Millisecond, "never before the limit")
	assert.Less(t, late[n/2], idle, "the median within one more idle limit, even on a busy machine")
}

// Response headers held past the establishment limit fail the stream as establishment: a
// TIMEOUT for the caller, ESTABLISH_TIMEOUT counted toward the breaker like a unary
// failure, so the breaker opens on as many of them as of failed unary calls.
func TestStreamTransportEstablishTimeoutTripsTheBreakerLikeAUnaryFailure(t *testing.T) {
	stream := func(t *testing.T, e *cmdtest.Env) func() error {
		held := make(chan struct{}, 1)
		srv := chunkServer(t, chunked{held: held})
		c := streamClient(t, e, "stream.establishTimeoutInMilliseconds", "50")
		return func() error {
			done := make(chan error, 1)
			go func() {
				resp, err := c.Get(srv.URL)
				if err == nil {
					resp.Body.Close()
				}
				done <- err
			}()
			select {
			case <-held:
				e.Clock.Advance(60 * time.Millisecond)
				err := <-done
				assert.ErrorIs(t, err, command.ErrTimeout)
				assert.ErrorIs(t, err, command.ErrStreamEstablishTimeout)
				return err
			case err := <-done: // refused before it was sent
				return err
			}
		}
	}
	unary := func(t *testing.T, e *cmdtest.Env) func() error {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
		}))
		t.Cleanup(srv.Close)
		c := client(t, &Transport{Setter: e.Setter("S")})
		return func() error {
			_, _, err := get(c, srv.URL)
			return err
		}
	}
	opensAfter := map[string]int{}
	for name, calls := range map[string]func(*testing.T, *cmdtest.Env) func() error{"stream": stream, "unary": unary} {
		e := cmdtest.New(t)
		call := calls(t, e)
		for n := range 10 {
			if err := call(); errors.Is(err, command.ErrShortCircuited) {
				opensAfter[name] = n
				break
			}
			e.Tick(200 * time.Millisecond) // a health snapshot reaches the breaker
		}
		if name == "stream" {
			assert.Equal(t, int64(opensAfter[name]), e.Count("S", metrics.StreamEstablishTimeout))
		}
	}
	t.Logf("the breaker opens after %v failures", opensAfter)
	assert.Positive(t, opensAfter["stream"])
	assert.Equal(t, opensAfter["unary"], opensAfter["stream"])
}

// The caller's cancellation, before the headers or in the middle of the body, ends the
// stream CANCELLED, never a FAILURE or a MID_STREAM_FAILURE.
func TestStreamTransportCallersCancellationIsCancelled(t *testing.T) {
	t.Run("mid-body", func(t *testing.T) {
		e := cmdtest.New(t)
		srv := chunkServer(t, chunked{total: 10, stall: 2, cut: -1})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := streamClient(t, e, "stream.idleTimeoutInMilliseconds", "1000").Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		s := bufio.NewScanner(resp.Body)
		require.True(t, s.Scan())
		require.True(t, s.Scan())
		time.AfterFunc(10*time.Millisecond, cancel)
		assert.False(t, s.Scan())
		assert.ErrorIs(t, s.Err(), context.Canceled)
		assert.Equal(t, map[string]int64{"CANCELLED": 1}, keyEvents(t, e, "S"))
	})
	t.Run("before the headers", func(t *testing.T) {
		e := cmdtest.New(t)
		held := make(chan struct{}, 1)
		srv := chunkServer(t, chunked{held: held})
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		go func() { <-held; cancel() }()
		_, err := streamClient(t, e, "stream.establishTimeoutInMilliseconds", "1000").Do(req)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, map[string]int64{"CANCELLED": 1}, keyEvents(t, e, "S"))
	})
}

// A caller that closes the body early ends the stream (a SUCCESS: it had what it wanted)
// and the request on the wire, and leaves no goroutine behind.
func TestStreamTransportEarlyCloseLeavesNoGoroutine(t *testing.T) {
	before := goleak.IgnoreCurrent()
	e := cmdtest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; r.Context().Err() == nil; i++ {
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	base := http.DefaultTransport.(*http.Transport).Clone()
	c := &http.Client{Transport: &StreamTransport{Base: base, Setter: e.Setter("S",
		"stream.idleTimeoutInMilliseconds", "1000", "stream.maxLifetimeInMilliseconds", "60000")}}
	for range 20 {
		resp, err := c.Get(srv.URL)
		require.NoError(t, err)
		s := bufio.NewScanner(resp.Body)
		require.True(t, s.Scan())
		require.True(t, s.Scan())
		require.NoError(t, resp.Body.Close())
	}
	// The permit is given back before the outcome is counted: wait for the last count.
	assert.Eventually(t, func() bool { return e.Count("S", metrics.Success) == 20 },
		5*time.Second, time.Millisecond)
	assert.Equal(t, map[string]int64{"SUCCESS": 20}, keyEvents(t, e, "S"))
	base.CloseIdleConnections()
	srv.Close()
	goleak.VerifyNone(t, before)
}

// Headers without a first chunk within stream.firstItemTimeoutInMilliseconds fail the
// stream as establishment: Read returns the limit's error, the command is an
// ESTABLISH_TIMEOUT (a TIMEOUT for the caller), counted toward the breaker.
func TestStreamTransportFirstItemLimit(t *testing.T) {
	e := cmdtest.New(t)
	srv := chunkServer(t, chunked{total: 10, stall: 0, cut: -1})
	resp, err := streamClient(t, e, "stream.firstItemTimeoutInMilliseconds", "50").Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		select {
		case err := <-done:
			assert.ErrorIs(t, err, command.ErrStreamFirstItemTimeout)
			assert.Equal(t, map[string]int64{"ESTABLISH_TIMEOUT": 1, "FALLBACK_MISSING": 1, "EXCEPTION_THROWN": 1},
				keyEvents(t, e, "S"))
			return
		case <-time.After(time.Millisecond):
			require.True(t, time.Now().Before(deadline), "the silent read never ended")
			e.Clock.Advance(10 * time.Millisecond)
		}
	}
}

// A failure status is a FAILURE, as with Transport, and the caller gets the response as
// the server sent it; a bad request leaves the breaker alone.
func TestStreamTransportStatus(t *testing.T) {
	for status, want := range map[int]string{503: "FAILURE", 404: "BAD_REQUEST"} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			e := cmdtest.New(t)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				http.Error(w, "no stream today", status)
			}))
			defer srv.Close()
			resp, err := streamClient(t, e).Get(srv.URL)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.NoError(t, err)
			assert.Equal(t, status, resp.StatusCode)
			assert.Equal(t, "no stream today\n", string(body))
			assert.EqualValues(t, 1, keyEvents(t, e, "S")[want])
			assert.Zero(t, keyEvents(t, e, "S")["SUCCESS"])
		})
	}
}
