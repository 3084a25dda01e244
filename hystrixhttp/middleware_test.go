package hystrixhttp

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// serve starts a real server on 127.0.0.1 routing "GET /work" to h wrapped by mw, with
// its error log captured, and returns it with a client of its own.
func serve(t *testing.T, mw *Middleware, h http.Handler) (*httptest.Server, *http.Client, *syncbuf.Buffer) {
	mux := http.NewServeMux()
	mux.Handle("GET /work", mw.Wrap(h))
	srv := httptest.NewUnstartedServer(mux)
	var logs syncbuf.Buffer
	srv.Config.ErrorLog = log.New(&logs, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return srv, &http.Client{Transport: tr}, &logs
}

// switchable answers its status (and the status text) and counts its requests.
type switchable struct {
	status atomic.Int32
	hits   atomic.Int32
}

func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	w.WriteHeader(int(s.status.Load()))
	io.WriteString(w, http.StatusText(int(s.status.Load())))
}

// A request graded throttling refuses (the handler failing every request, the breaker
// off) is answered 503 with Retry-After, as a rejection is, and never reaches the handler.
func TestMiddlewareAnswersThrottledWithRetryAfter(t *testing.T) {
	e := cmdtest.New(t)
	h := &switchable{}
	h.status.Store(http.StatusInternalServerError)
	s := e.Setter("T", "circuitBreaker.enabled", "false", "throttle.enabled", "true", "throttle.minRequests", "4")
	srv, c, _ := serve(t, &Middleware{Setter: s}, h)
	for i := 0; e.Count("T", metrics.Throttled) == 0; i++ { // refused at random: drive it, bounded
		require.Less(t, i, 1000, "never throttled")
		hits := h.hits.Load()
		resp, body, err := get(c, srv.URL+"/work")
		require.NoError(t, err)
		if resp.StatusCode == http.StatusServiceUnavailable {
			assert.Equal(t, "1", resp.Header.Get("Retry-After"))
			assert.Equal(t, "Service Unavailable\n", body)
			assert.Equal(t, hits, h.hits.Load(), "a refused request never reaches the handler")
		} else {
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
		}
	}
}

func TestMiddlewareBreakerOpensOnAFailingHandlerAndClosesOnceItRecovers(t *testing.T) {
	e := cmdtest.New(t)
	h := &switchable{}
	h.status.Store(http.StatusInternalServerError)
	s := e.Setter("")
	srv, c, _ := serve(t, &Middleware{Setter: s}, h)

	for range 3 {
		resp, body, err := get(c, srv.URL+"/work")
		require.NoError(t, err)
		assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, "the handler's answer stands")
		assert.Equal(t, "Internal Server Error", body)
	}
	e.Tick(200 * time.Millisecond)
	resp, body, err := get(c, srv.URL+"/work")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"), "the sleep window, in seconds")
	assert.Equal(t, "Service Unavailable\n", body)
	assert.EqualValues(t, 3, h.hits.Load(), "an open breaker keeps requests off the handler")

	h.status.Store(http.StatusOK)
	e.Tick(time.Second)
	for range 2 {
		resp, _, err = get(c, srv.URL+"/work")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	assert.EqualValues(t, 5, h.hits.Load())
	const key = "GET /work" // the ServeMux pattern
	assert.EqualValues(t, 3, e.Count(key, metrics.Failure))
	assert.EqualValues(t, 1, e.Count(key, metrics.ShortCircuited))
	assert.EqualValues(t, 2, e.Count(key, metrics.Success))
}

func TestMiddleware4xxNeverOpensTheBreaker(t *testing.T) {
	e := cmdtest.New(t)
	h := &switchable{}
	h.status.Store(http.StatusBadRequest)
	srv, c, _ := serve(t, &Middleware{Setter: e.Setter("work")}, h)
	for range 5 {
		resp, _, err := get(c, srv.URL+"/work")
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		e.Tick(200 * time.Millisecond)
	}
	assert.EqualValues(t, 5, h.hits.Load())
	assert.EqualValues(t, 5, e.Count("work", metrics.BadRequest))
}

func TestMiddlewareRejectsBeyondTheSemaphore(t *testing.T) {
	e := cmdtest.New(t)
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	})
	srv, c, _ := serve(t, &Middleware{Setter: e.Setter("work",
		"execution.isolation.semaphore.maxConcurrentRequests", "1")}, h)

	first := goGet(c, srv.URL+"/work")
	<-entered
	resp, _, err := get(c, srv.URL+"/work")
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	close(release)
	require.NoError(t, (<-first).err)
	assert.EqualValues(t, 1, e.Count("work", metrics.SemaphoreRejected))
}

func TestMiddlewareFallbackAnswersRefusals(t *testing.T) {
	e := cmdtest.New(t)
	var causes []error
	mw := &Middleware{Setter: e.Setter("work", "circuitBreaker.forceOpen", "true"),
		Fallback: func(w http.ResponseWriter, r *http.Request, err error) {
			causes = append(causes, err)
			w.Header().Set("X-Fallback", "yes")
			io.WriteString(w, "from cache")
		}}
	srv, c, _ := serve(t, mw, &switchable{})
	resp, body, err := get(c, srv.URL+"/work")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "from cache", body)
	assert.Equal(t, "yes", resp.Header.Get("X-Fallback"))
	require.Len(t, causes, 1)
	assert.ErrorIs(t, causes[0], command.ErrShortCircuited)
	assert.EqualValues(t, 1, e.Count("work", metrics.FallbackSuccess))
}

func TestMiddlewareTimeoutBeforeTheFirstWriteAnswers503(t *testing.T) {
	e := cmdtest.New(t)
	entered, sawCancel := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done()
		close(sawCancel)
	})
	srv, c, _ := serve(t, &Middleware{Setter: e.Setter("work",
		"execution.isolation.thread.timeoutInMilliseconds", "300")}, h)

	done := goGet(c, srv.URL+"/work")
	<-entered
	e.Clock.Advance(300 * time.Millisecond)
	<-sawCancel
	a := <-done
	require.NoError(t, a.err)
	resp := a.resp
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Retry-After"))
	assert.EqualValues(t, 1, e.Count("work", metrics.Timeout))
}

func TestMiddlewareTimeoutAfterTheFirstWriteAbortsTheResponse(t *testing.T) {
	e := cmdtest.New(t)
	entered := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial")
		http.NewResponseController(w).Flush()
		close(entered)
		<-r.Context().Done()
	})
	srv, c, logs := serve(t, &Middleware{Setter: e.Setter("work",
		"execution.isolation.thread.timeoutInMilliseconds", "300")}, h)

	resp, err := c.Get(srv.URL + "/work")
	require.NoError(t, err)
	defer resp.Body.Close()
	<-entered
	e.Clock.Advance(300 * time.Millisecond)
	body, err := io.ReadAll(resp.Body)
	assert.Equal(t, "partial", string(body))
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "a cut-off response must not look whole")
	assert.EqualValues(t, 1, e.Count("work", metrics.Timeout))
	assert.Empty(t, logs.String(), "an aborted response is not logged as a panic")
}

func TestMiddlewarePanicIsAFailureAndIsRaisedAgain(t *testing.T) {
	e := cmdtest.New(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	srv, c, logs := serve(t, &Middleware{Setter: e.Setter("work"),
		Fallback: func(w http.ResponseWriter, r *http.Request, err error) {
			t.Error("the fallback must not answer for a panic")
		}}, h)
	_, err := c.Get(srv.URL + "/work")
	require.Error(t, err, "net/http aborts the connection of a panicking handler")
	assert.EqualValues(t, 1, e.Count("work", metrics.Failure))
	assert.Contains(t, logs.String(), "http: panic serving")
	assert.Contains(t, logs.String(), "command: panic: boom")
}

func TestMiddlewareAbortHandlerPanicPassesThroughSilently(t *testing.T) {
	e := cmdtest.New(t)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) })
	srv, c, logs := serve(t, &Middleware{Setter: e.Setter("work")}, h)
	_, err := c.Get(srv.URL + "/work")
	require.Error(t, err)
	assert.EqualValues(t, 1, e.Count("work", metrics.Failure))
	assert.Empty(t, logs.String())
}

func TestMiddlewareFallbackPanicIsRaisedAgain(t *testing.T) {
	e := cmdtest.New(t)
	mw := &Middleware{Setter: e.Setter("work", "circuitBreaker.forceOpen", "true"),
		Fallback: func(w http.ResponseWriter, r *http.Request, err error) { panic(errors.New("fallback broke")) }}
	srv, c, logs := serve(t, mw, &switchable{})
	_, err := c.Get(srv.URL + "/work")
	require.Error(t, err)
	assert.EqualValues(t, 1, e.Count("work", metrics.FallbackFailure))
	assert.Contains(t, logs.String(), "command: panic: fallback broke")
}

// TestMiddlewareThreadIsolationWaitsForTheHandler: under THREAD isolation the command
// gives up at the timeout while the handler goes on; Wrap must not answer or return
// while the handler can still write.
func TestMiddlewareThreadIsolationWaitsForTheHandler(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes bool
	}{{"handler writes late: aborted", true}, {"handler writes nothing: 503", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e := cmdtest.New(t)
			entered, release := make(chan struct{}), make(chan struct{})
			var returned atomic.Bool
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(entered)
				<-release // ignores its context for a while
				if tc.writes {
					io.WriteString(w, "late")
				}
				returned.Store(true)
			})
			var fallbacks atomic.Int32
			srv, c, _ := serve(t, &Middleware{Setter: e.Setter("work",
				"execution.isolation.strategy", "THREAD",
				"execution.isolation.thread.timeoutInMilliseconds", "300"),
				Fallback: func(w http.ResponseWriter, r *http.Request, err error) {
					assert.True(t, returned.Load(), "the fallback answers after the handler returned")
					assert.ErrorIs(t, err, command.ErrTimeout)
					fallbacks.Add(1)
					w.WriteHeader(http.StatusGatewayTimeout)
				}}, h)

			done := goGet(c, srv.URL+"/work")
			<-entered
			e.Clock.Advance(300 * time.Millisecond)
			close(release)
			a := <-done
			if tc.writes {
				assert.Error(t, a.err)
				assert.Zero(t, fallbacks.Load())
			} else {
				require.NoError(t, a.err)
				assert.Equal(t, http.StatusGatewayTimeout, a.resp.StatusCode)
				assert.EqualValues(t, 1, fallbacks.Load())
			}
			assert.EqualValues(t, 1, e.Count("work", metrics.Timeout))
		})
	}
}

// Under ADAPTIVE isolation the request's Hystrix-Criticality header gives its criticality:
// with a limit of 2, SHEDDABLE requests may use one permit, the others both.
func TestMiddlewareTakesTheCriticalityFromTheHeader(t *testing.T) {
	e := cmdtest.New(t)
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("hold") != "" {
			close(entered)
			<-release
		}
	})
	srv, c, _ := serve(t, &Middleware{Setter: e.Setter("work", "execution.isolation.strategy", "ADAPTIVE",
		"execution.isolation.adaptive.minLimit", "2", "execution.isolation.adaptive.initialLimit", "2",
		"execution.isolation.adaptive.maxLimit", "2")}, h)
	get := func(path, criticality string) *http.Response {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		if criticality != "" {
			req.Header.Set(CriticalityHeader, criticality)
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	held := make(chan *http.Response)
	go func() { held <- get("/work?hold=1", "sheddable") }()
	<-entered
	resp := get("/work", "SHEDDABLE")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "SHEDDABLE's share is taken")
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, http.StatusOK, get("/work", "").StatusCode, "CRITICAL without the header")
	assert.Equal(t, http.StatusOK, get("/work", "critical-plus").StatusCode)
	close(release)
	assert.Equal(t, http.StatusOK, (<-held).StatusCode)
	assert.EqualValues(t, 1, e.Count("work", metrics.AdaptiveRejected))
}
