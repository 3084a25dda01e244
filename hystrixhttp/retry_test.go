package hystrixhttp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// flaky is a real server on 127.0.0.1 that answers 503 (with retryAfter as its
// Retry-After header, if set) to its first failures requests and 200 after, keeping
// every request body it read.
type flaky struct {
	*httptest.Server
	failures   int32
	retryAfter string
	hits       atomic.Int32
	mu         sync.Mutex
	bodies     []string
}

func newFlaky(t *testing.T, failures int32, retryAfter string) *flaky {
	f := &flaky{failures: failures, retryAfter: retryAfter}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, string(body))
		f.mu.Unlock()
		if f.hits.Add(1) <= f.failures {
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "OK")
	}))
	t.Cleanup(f.Close)
	return f
}

// retrying returns the properties of a key that retries up to 3 attempts without backoff.
func retrying(kv ...string) []string {
	return append([]string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "0",
		"circuitBreaker.enabled", "false"}, kv...)
}

func do(t *testing.T, c *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func TestTransportRetriesAnIdempotentRequestAndClosesWhatItRetried(t *testing.T) {
	e := cmdtest.New(t)
	be := newFlaky(t, 2, "")
	tr := newTracking()
	c := client(t, &Transport{Base: tr, Setter: e.Setter("get", retrying()...)})
	req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
	resp, body := do(t, c, req)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "OK", body)
	assert.EqualValues(t, 3, be.hits.Load())
	for i := range 3 {
		assert.True(t, (<-tr.bodies).closed.Load(), "body %d closed", i)
	}
	assert.EqualValues(t, 2, e.Count("get", metrics.Retry))
	assert.EqualValues(t, 2, e.Count("get", metrics.Failure))
}

// A retried PUT is sent again whole: its body comes from GetBody.
func TestTransportResendsABodyThatCanBeReadAgain(t *testing.T) {
	e := cmdtest.New(t)
	be := newFlaky(t, 2, "")
	c := client(t, &Transport{Setter: e.Setter("put", retrying()...)})
	req, _ := http.NewRequest(http.MethodPut, be.URL, strings.NewReader("payload"))
	resp, _ := do(t, c, req)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []string{"payload", "payload", "payload"}, be.bodies)
}

// 10,000 POSTs to a failing backend on a key that retries, from 8 goroutines: not one is
// sent twice. A POST marked with an Idempotency-Key is retried, unless its body cannot
// be read again.
func TestTransportNeverRetriesANonIdempotentCall(t *testing.T) {
	e := cmdtest.New(t)
	be := newFlaky(t, 1<<30, "")
	c := client(t, &Transport{Setter: e.Setter("post", retrying("execution.isolation.semaphore.maxConcurrentRequests", "100")...)})
	const calls, workers = 10_000, 8
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range calls / workers {
				req, _ := http.NewRequest(http.MethodPost, be.URL, strings.NewReader("order"))
				resp, err := c.Do(req)
				if assert.NoError(t, err) {
					resp.Body.Close()
					assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, calls, be.hits.Load(), "0 retries of %d non-idempotent calls", calls)
	assert.Zero(t, e.Count("post", metrics.Retry))

	be.hits.Store(0)
	req, _ := http.NewRequest(http.MethodPost, be.URL, strings.NewReader("order"))
	req.Header.Set("Idempotency-Key", "k1")
	do(t, c, req)
	assert.EqualValues(t, 3, be.hits.Load(), "marked idempotent: retried")

	be.hits.Store(0)
	req, _ = http.NewRequest(http.MethodPut, be.URL, io.NopCloser(bytes.NewBufferString("stream")))
	do(t, c, req)
	assert.EqualValues(t, 1, be.hits.Load(), "a body without GetBody is sent once")

	be.hits.Store(0)
	req, _ = http.NewRequest(http.MethodGet, be.URL, nil)
	c = client(t, &Transport{Setter: e.Setter("never", retrying()...), Idempotent: func(*http.Request) bool { return false }})
	do(t, c, req)
	assert.EqualValues(t, 1, be.hits.Load(), "Idempotent says no")
}

// A 503 with Retry-After: 2 makes the retry wait 2 s on the runtime's clock.
func TestTransportWaitsTheRetryAfterTheServerAskedFor(t *testing.T) {
	e := cmdtest.New(t)
	be := newFlaky(t, 1, "2")
	c := client(t, &Transport{Setter: e.Setter("ra", "retry.maxAttempts", "2", "execution.timeout.enabled", "false")})
	base := e.Clock.Pending() // the metrics stream's timers
	out := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		resp, err := c.Do(req)
		assert.NoError(t, err)
		out <- resp
	}()
	e.Clock.BlockUntil(base + 1)
	assert.EqualValues(t, 1, be.hits.Load())
	e.Clock.Advance(1999 * time.Millisecond)
	assert.Equal(t, base+1, e.Clock.Pending(), "still waiting")
	e.Clock.Advance(time.Millisecond)
	resp := <-out
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 2, be.hits.Load())
}

// inOrder is a base transport that wraps every response body in a trackedBody and, as
// each request is sent, records which bodies of the requests before it were closed by
// then.
type inOrder struct {
	base   *http.Transport
	mu     sync.Mutex
	bodies []*trackedBody
	closed [][]bool // per request sent: the closed state of every earlier body
}

func newInOrder(t *testing.T) *inOrder {
	o := &inOrder{base: http.DefaultTransport.(*http.Transport).Clone()}
	t.Cleanup(o.base.CloseIdleConnections)
	return o
}

func (o *inOrder) RoundTrip(req *http.Request) (*http.Response, error) {
	o.mu.Lock()
	before := make([]bool, len(o.bodies))
	for i, b := range o.bodies {
		before[i] = b.closed.Load()
	}
	o.closed = append(o.closed, before)
	o.mu.Unlock()
	resp, err := o.base.RoundTrip(req)
	if err == nil {
		b := &trackedBody{ReadCloser: resp.Body}
		resp.Body = b
		o.mu.Lock()
		o.bodies = append(o.bodies, b)
		o.mu.Unlock()
	}
	return resp, err
}

// sent returns, per request sent, which earlier bodies were closed when it was sent.
func (o *inOrder) sent() [][]bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.closed)
}

// body returns the body of the n-th response (from 1).
func (o *inOrder) body(n int) *trackedBody {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.bodies[n-1]
}

// A key that retries 3 times with a backoff and no timeout (so no body is read ahead):
// each retried 503's response is closed before the next attempt's request is sent, not
// when the command ends. The caller gets the last attempt's response whole, a 200 or,
// when all three failed, the last 503 (with its body, open until the caller closes it).
func TestTransportClosesARetriedResponseBeforeTheRetryIsSent(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []int
		want     int
	}{
		{"503 twice then 200", []int{503, 503}, http.StatusOK},
		{"503 three times", []int{503, 503, 503}, http.StatusServiceUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := cmdtest.New(t)
			be := newStaged(t, nil, tc.statuses)
			base := newInOrder(t)
			c := client(t, &Transport{Base: base, Setter: e.Setter("backoff", retrying(
				"retry.backoffInMilliseconds", "100", "execution.timeout.enabled", "false")...)})
			stop := e.Clock.Run(time.Millisecond, 50*time.Microsecond) // through the backoffs
			req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
			resp, err := c.Do(req)
			stop()
			require.NoError(t, err)
			assert.False(t, base.body(3).closed.Load(), "the caller's body is open")
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tc.want, resp.StatusCode)
			assert.Equal(t, "answer 3", string(body), "the last attempt's response, whole")
			assert.Equal(t, [][]bool{{}, {true}, {true, true}}, base.sent(),
				"each earlier body closed before the next request was sent")
			assert.True(t, base.body(3).closed.Load(), "closed by the caller")
			assert.EqualValues(t, 3, be.hits.Load())
			assert.EqualValues(t, 2, e.Count("backoff", metrics.Retry))
			assert.EqualValues(t, len(tc.statuses), e.Count("backoff", metrics.Failure))
		})
	}
}

// When every attempt fails, the Fallback gets the last attempt's *StatusError, whose
// response is still open: it may hand it back, and the caller reads it whole. The earlier
// attempts' responses were closed as their retries began.
func TestTransportFallbackMayHandBackTheLastRetriedResponse(t *testing.T) {
	e := cmdtest.New(t)
	be := newStaged(t, nil, []int{503, 502, 500})
	base := newInOrder(t)
	c := client(t, &Transport{Base: base, Setter: e.Setter("fb-retry", retrying()...),
		Fallback: func(req *http.Request, err error) (*http.Response, error) {
			var se *StatusError
			if errors.As(err, &se) {
				return se.Response, nil
			}
			return nil, err
		}})
	req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
	resp, body := do(t, c, req)
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Equal(t, "answer 3", body)
	assert.Equal(t, [][]bool{{}, {true}, {true, true}}, base.sent())
	assert.EqualValues(t, 1, e.Count("fb-retry", metrics.FallbackSuccess))
}

// On a key that may hedge as well as retry, a retry cannot tell itself from a hedge that
// began as the attempt before it answered: every response is kept until the command's
// outcome is decided, then the ones the caller does not get are closed.
func TestTransportKeepsRetriedResponsesUntilTheOutcomeOnAKeyThatHedges(t *testing.T) {
	e := cmdtest.New(t)
	be := newStaged(t, nil, []int{503, 503})
	base := newInOrder(t)
	c := client(t, &Transport{Base: base, Setter: e.Setter("retry-hedge", retrying(hedging()...)...)})
	req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
	resp, body := do(t, c, req)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "answer 3", body)
	assert.Equal(t, [][]bool{{}, {false}, {false, false}}, base.sent(), "nothing closed before the outcome")
	for n := 1; n <= 3; n++ {
		assert.True(t, base.body(n).closed.Load(), "body %d closed", n)
	}
	assert.EqualValues(t, 2, e.Count("retry-hedge", metrics.Retry))
	assert.Zero(t, e.Count("retry-hedge", metrics.Hedge), "the clock never reached the hedge delay")
}

// connections is a real server on 127.0.0.1 that counts the connections it accepted and
// answers each GET of "/" with the next of statuses (then 200) and the body of body's
// size, and "/other" with 200 at once.
type connections struct {
	*httptest.Server
	opened atomic.Int32
	hits   atomic.Int32
}

func newConnections(t *testing.T, statuses []int, body int, chunked bool) *connections {
	c := &connections{}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/other" {
			io.WriteString(w, "other")
			return
		}
		n := int(c.hits.Add(1))
		if !chunked {
			w.Header().Set("Content-Length", strconv.Itoa(body))
		}
		if n <= len(statuses) {
			w.WriteHeader(statuses[n-1])
		}
		w.Write(bytes.Repeat([]byte{byte('a' + n)}, body))
	}))
	c.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.opened.Add(1)
		}
	}
	c.Start()
	t.Cleanup(c.Close)
	return c
}

// A retrying key holds no connection through its backoff: the failed attempt's body is
// read in its run and its connection goes back to the pool, drained. With one connection
// allowed per host, another request gets through while the retry waits, and the retry
// and that request reuse the one connection the failed attempt opened.
func TestTransportGivesAFailedAttemptsConnectionBackForTheBackoff(t *testing.T) {
	e := cmdtest.New(t)
	be := newConnections(t, []int{503}, 512, false)
	base := &http.Transport{MaxConnsPerHost: 1}
	t.Cleanup(base.CloseIdleConnections)
	c := &http.Client{Transport: &Transport{Base: base, Setter: e.Setter("conn", "retry.maxAttempts", "2",
		"retry.backoffInMilliseconds", "10000")}} // within the 60 s timeout, which the attempts share
	out := make(chan string, 1)
	go func() {
		_, body, err := get(c, be.URL)
		assert.NoError(t, err)
		out <- body
	}()
	require.Eventually(t, func() bool { return be.hits.Load() == 1 }, 5*time.Second, time.Millisecond)
	// The clock stands still: the retry cannot be sent before the other request is done.
	other := &http.Client{Transport: base, Timeout: 5 * time.Second}
	_, body, err := get(other, be.URL+"/other")
	require.NoError(t, err, "the failed attempt's connection is free during the backoff")
	assert.Equal(t, "other", body)
	assert.EqualValues(t, 1, be.hits.Load(), "the retry waits for the clock")
	stop := e.Clock.Run(100*time.Millisecond, 100*time.Microsecond) // through the backoff
	assert.Equal(t, strings.Repeat("c", 512), <-out, "the retry's answer")
	stop()
	assert.EqualValues(t, 1, be.opened.Load(), "one connection, drained and reused")
}

// A failure body read ahead is the caller's, and the Fallback's, byte for byte, however
// long: up to 64 KiB it comes from memory; longer, with its length known, it is left on its
// connection; longer and chunked, the part read ahead comes first, then the rest.
func TestTransportGivesAFailureBodyReadAheadWhole(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		chunked bool
	}{
		{"empty", 0, false},
		{"small", 100, false},
		{"64 KiB", maxSpool, false},
		{"longer, with its length", maxSpool + 1, false},
		{"longer, chunked", 3*maxSpool + 7, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := cmdtest.New(t)
			be := newConnections(t, []int{503, 502}, tc.size, tc.chunked)
			c := client(t, &Transport{Setter: e.Setter("whole", "retry.maxAttempts", "2",
				"retry.backoffInMilliseconds", "0", "circuitBreaker.enabled", "false")})
			resp, body, err := get(c, be.URL)
			require.NoError(t, err)
			assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
			assert.Equal(t, strings.Repeat("c", tc.size), body, "the last attempt's body, whole")

			var fb string
			c = client(t, &Transport{Setter: e.Setter("whole-fb", "retry.maxAttempts", "2",
				"retry.backoffInMilliseconds", "0", "circuitBreaker.enabled", "false"),
				Fallback: func(_ *http.Request, err error) (*http.Response, error) {
					var se *StatusError
					require.ErrorAs(t, err, &se)
					b, rerr := io.ReadAll(se.Response.Body)
					require.NoError(t, rerr)
					fb = string(b)
					return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
				}})
			be.hits.Store(0)
			_, _, err = get(c, be.URL)
			require.NoError(t, err)
			assert.Equal(t, strings.Repeat("c", tc.size), fb, "the Fallback reads the same bytes")
		})
	}
}

// A Classify that panics is user code failing: the call fails (the panic is the cause),
// and the response it was classifying is closed all the same, on a key that retries (whose
// failures are read ahead) as on one that does not.
func TestTransportClosesTheResponseOfAClassifyThatPanicked(t *testing.T) {
	for _, props := range [][]string{retrying("retry.maxAttempts", "2"), nil} {
		e := cmdtest.New(t)
		be := newFlaky(t, 0, "")
		tr := newTracking()
		c := client(t, &Transport{Base: tr, Setter: e.Setter("classify", props...),
			Classify: func(int) command.Class { panic("classify broke") }})
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		_, err := c.Do(req)
		require.ErrorContains(t, err, "classify broke")
		assert.True(t, (<-tr.bodies).closed.Load(), "the response is closed (%v)", props)
	}
}

// A server that answers 503 and then stalls its body: the read-ahead is bounded by the
// attempt's timeout, so the caller gets its TIMEOUT at the timeout and the stalled body is
// closed (goleak checks that nothing is left reading it).
func TestTransportReadAheadEndsAtTheTimeout(t *testing.T) {
	e := cmdtest.New(t)
	arrived, stop := make(chan struct{}, 4), make(chan struct{})
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		arrived <- struct{}{}
		select { // the rest never comes
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer be.Close()
	defer close(stop)
	c := client(t, &Transport{Setter: e.Setter("stall", retrying("retry.maxAttempts", "2",
		"execution.isolation.thread.timeoutInMilliseconds", "100")...)})
	out := make(chan error, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		out <- err
	}()
	<-arrived
	stopClock := e.Clock.Run(10*time.Millisecond, 100*time.Microsecond)
	defer stopClock()
	select {
	case err := <-out:
		require.ErrorIs(t, err, command.ErrTimeout)
	case <-time.After(5 * time.Second):
		t.Fatal("the read-ahead of a stalled body outlived the timeout")
	}
	assert.EqualValues(t, 1, e.Count("stall", metrics.Timeout))
}
