package hystrixhttp

import (
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

// hedging returns the properties of a key that hedges once after 50 ms.
func hedging(kv ...string) []string {
	return append([]string{"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "50",
		"circuitBreaker.enabled", "false"}, kv...)
}

// staged is a real server on 127.0.0.1 whose n-th request (from 1) waits for gates[n-1]
// to close, or for its own context to end, before it answers with statuses[n-1] and the
// body "answer n". arrived receives n as each request arrives; cancelled receives n
// when a request's context ended before its gate opened.
type staged struct {
	*httptest.Server
	hits      atomic.Int32
	arrived   chan int
	cancelled chan int
}

func newStaged(t *testing.T, gates []chan struct{}, statuses []int) *staged {
	s := &staged{arrived: make(chan int, 16), cancelled: make(chan int, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.hits.Add(1))
		s.arrived <- n
		if n <= len(gates) {
			select {
			case <-gates[n-1]:
			case <-r.Context().Done():
				s.cancelled <- n
				return
			}
		}
		status := http.StatusOK
		if n <= len(statuses) {
			status = statuses[n-1]
		}
		w.WriteHeader(status)
		io.WriteString(w, "answer "+string(rune('0'+n)))
	}))
	t.Cleanup(s.Close)
	return s
}

func recv(t *testing.T, c <-chan int) int {
	t.Helper()
	select {
	case n := <-c:
		return n
	case <-time.After(5 * time.Second):
		t.Fatal("nothing within 5 s")
		return 0
	}
}

// The first GET hangs; 50 ms later (the key's hedge delay) the hedge asks again and is
// answered at once: the caller gets the hedge's answer, whole, and the first request is
// cancelled on the wire (the server sees its context end).
func TestTransportHedgesAnIdempotentRequestAndCancelsTheLoser(t *testing.T) {
	e := cmdtest.New(t)
	slow := make(chan struct{})
	defer close(slow)
	be := newStaged(t, []chan struct{}{slow}, nil)
	c := client(t, &Transport{Setter: e.Setter("hedged", hedging()...)})
	out := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		resp, body := do(t, c, req)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		out <- body
	}()
	assert.Equal(t, 1, recv(t, be.arrived))
	e.Clock.Advance(50 * time.Millisecond)
	assert.Equal(t, 2, recv(t, be.arrived))
	assert.Equal(t, "answer 2", <-out)
	assert.Equal(t, 1, recv(t, be.cancelled), "the loser's request is cancelled")
	e.Await(t, "hedged", metrics.Cancelled, 1)
	assert.EqualValues(t, 1, e.Count("hedged", metrics.Hedge))
	assert.EqualValues(t, 1, e.Count("hedged", metrics.Success))
	assert.EqualValues(t, 1, e.Count("hedged", metrics.Cancelled))
	assert.EqualValues(t, 2, be.hits.Load())
}

// The first GET answers 503 while the hedge is still waiting, then the hedge answers 200:
// the caller gets the 200, and the 503's response, which nobody gets, is closed.
func TestTransportClosesTheResponseOfAHedgeLoser(t *testing.T) {
	e := cmdtest.New(t)
	first, second := make(chan struct{}), make(chan struct{})
	be := newStaged(t, []chan struct{}{first, second}, []int{http.StatusServiceUnavailable, http.StatusOK})
	tr := newTracking()
	c := client(t, &Transport{Base: tr, Setter: e.Setter("loser", hedging()...)})
	out := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		resp, body := do(t, c, req)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		out <- body
	}()
	assert.Equal(t, 1, recv(t, be.arrived))
	e.Clock.Advance(50 * time.Millisecond)
	assert.Equal(t, 2, recv(t, be.arrived))
	close(first)
	loser := <-tr.bodies
	close(second)
	assert.Equal(t, "answer 2", <-out)
	winner := <-tr.bodies
	assert.True(t, winner.closed.Load(), "closed by the caller")
	assert.Eventually(t, loser.closed.Load, 5*time.Second, time.Millisecond, "the 503 nobody got")
	e.Await(t, "loser", metrics.Failure, 1)
	assert.EqualValues(t, 1, e.Count("loser", metrics.Hedge))
	assert.EqualValues(t, 1, e.Count("loser", metrics.Failure))
	assert.EqualValues(t, 1, e.Count("loser", metrics.Success))
}

// When every attempt fails, the caller gets the last failure's response as the server
// sent it, and the other's is closed.
func TestTransportHandsTheLastFailureOfAHedgedTry(t *testing.T) {
	e := cmdtest.New(t)
	first, second := make(chan struct{}), make(chan struct{})
	be := newStaged(t, []chan struct{}{first, second}, []int{http.StatusServiceUnavailable, http.StatusBadGateway})
	tr := newTracking()
	c := client(t, &Transport{Base: tr, Setter: e.Setter("fail", hedging()...)})
	out := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		resp, err := c.Do(req)
		assert.NoError(t, err)
		out <- resp
	}()
	assert.Equal(t, 1, recv(t, be.arrived))
	e.Clock.Advance(50 * time.Millisecond)
	assert.Equal(t, 2, recv(t, be.arrived))
	close(first)
	loser := <-tr.bodies
	close(second)
	resp := <-out
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadGateway, resp.StatusCode)
	assert.Equal(t, "answer 2", string(body))
	assert.True(t, loser.closed.Load())
	assert.True(t, (<-tr.bodies).closed.Load())
	e.Await(t, "fail", metrics.Failure, 2)
	assert.EqualValues(t, 2, e.Count("fail", metrics.Failure))
}

// 1,000 POSTs from 8 goroutines on a key that hedges after 1 ms while the clock runs
// fast: not one is sent twice. The same with GETs hedges (driven until it does).
func TestTransportNeverHedgesANonIdempotentCall(t *testing.T) {
	e := cmdtest.New(t)
	var hits atomic.Int32
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hits.Add(1)
		time.Sleep(time.Millisecond)
		io.WriteString(w, "OK")
	}))
	defer be.Close()
	c := client(t, &Transport{Setter: e.Setter("hedge-post", hedging("hedge.delayInMilliseconds", "1",
		"execution.timeout.enabled", "false", "execution.isolation.semaphore.maxConcurrentRequests", "100")...)})
	defer e.Clock.Run(time.Millisecond, 50*time.Microsecond)()

	const calls, workers = 1000, 8
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range calls / workers {
				req, _ := http.NewRequest(http.MethodPost, be.URL, strings.NewReader("order"))
				if resp, err := c.Do(req); assert.NoError(t, err) {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, calls, hits.Load(), "0 hedges of %d POSTs", calls)

	hits.Store(0)
	sent := 0
	for deadline := time.Now().Add(10 * time.Second); int(hits.Load()) == sent && time.Now().Before(deadline); {
		req, _ := http.NewRequest(http.MethodGet, be.URL, nil)
		_, body := do(t, c, req)
		require.Equal(t, "OK", body)
		sent++
	}
	assert.Greater(t, int(hits.Load()), sent, "a GET is hedged")
}
