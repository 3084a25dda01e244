package hystrixhttp

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
