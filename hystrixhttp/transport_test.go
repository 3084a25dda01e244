package hystrixhttp

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// backend is a real server on 127.0.0.1 whose answer the test switches, counting the
// requests that reached it.
type backend struct {
	*httptest.Server
	status atomic.Int32
	hits   atomic.Int32
}

func newBackend(t *testing.T, status int) *backend {
	b := &backend{}
	b.status.Store(int32(status))
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hits.Add(1)
		w.WriteHeader(int(b.status.Load()))
		io.WriteString(w, http.StatusText(int(b.status.Load())))
	}))
	t.Cleanup(b.Close)
	return b
}

// client returns an http.Client whose transport is tr over a base transport of its own.
func client(t *testing.T, tr *Transport) *http.Client {
	if tr.Base == nil {
		base := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(base.CloseIdleConnections)
		tr.Base = base
	} else if c, ok := tr.Base.(*tracking); ok {
		t.Cleanup(c.base.(*http.Transport).CloseIdleConnections)
	}
	return &http.Client{Transport: tr}
}

// get GETs url through c and returns the response with its body, read whole and closed.
func get(c *http.Client, url string) (*http.Response, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

// answer is the outcome of get.
type answer struct {
	resp *http.Response
	body string
	err  error
}

// goGet runs get on a goroutine of its own.
func goGet(c *http.Client, url string) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		resp, body, err := get(c, url)
		ch <- answer{resp, body, err}
	}()
	return ch
}

func TestTransportBreakerOpensOn503AndClosesOnceTheBackendRecovers(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusServiceUnavailable)
	c := client(t, &Transport{Setter: e.Setter("backend")})

	for range 3 {
		resp, body, err := get(c, be.URL)
		require.NoError(t, err, "a 503 no fallback replaced reaches the caller as a response")
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(t, "Service Unavailable", body)
	}
	e.Tick(200 * time.Millisecond)

	_, _, err := get(c, be.URL)
	require.ErrorIs(t, err, command.ErrShortCircuited)
	var ce *command.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "backend", ce.CommandKey)
	assert.EqualValues(t, 3, be.hits.Load(), "an open breaker keeps requests off the backend")

	be.status.Store(http.StatusOK)
	e.Tick(time.Second) // the sleep window is over: the next request is the trial
	for range 3 {
		resp, body, err := get(c, be.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "OK", body)
	}
	assert.EqualValues(t, 6, be.hits.Load())
	assert.EqualValues(t, 3, e.Count("backend", metrics.Failure))
	assert.EqualValues(t, 1, e.Count("backend", metrics.ShortCircuited))
	assert.EqualValues(t, 3, e.Count("backend", metrics.Success))
}

func TestTransport4xxAreBadRequestsThatNeverOpenTheBreaker(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusNotFound)
	c := client(t, &Transport{Setter: e.Setter("backend")})
	for range 5 {
		resp, body, err := get(c, be.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Equal(t, "Not Found", body)
		e.Tick(200 * time.Millisecond)
	}
	assert.EqualValues(t, 5, be.hits.Load())
	assert.EqualValues(t, 5, e.Count("backend", metrics.BadRequest))
	assert.Zero(t, e.Count("backend", metrics.ShortCircuited))
}

func TestTransport429IsAFailureUnlessClassifiedOtherwise(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusTooManyRequests)

	c := client(t, &Transport{Setter: e.Setter("default")})
	for range 3 {
		resp, _, err := get(c, be.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	}
	e.Tick(200 * time.Millisecond)
	_, _, err := get(c, be.URL)
	require.ErrorIs(t, err, command.ErrShortCircuited, "by default 429 says the backend is overloaded")

	lenient := client(t, &Transport{Setter: e.Setter("lenient"), Classify: func(status int) command.Class {
		if status == http.StatusTooManyRequests {
			return command.ClassBadRequest
		}
		return DefaultClassify(status)
	}})
	for range 5 {
		resp, _, err := get(lenient, be.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		e.Tick(200 * time.Millisecond)
	}
	assert.EqualValues(t, 5, e.Count("lenient", metrics.BadRequest))
}

func TestTransportTimeoutCancelsTheRequestOnTheServer(t *testing.T) {
	e := cmdtest.New(t)
	entered, serverSawCancel := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-r.Context().Done() // the client's cancellation reaches the server
		close(serverSawCancel)
	}))
	defer srv.Close()
	c := client(t, &Transport{Setter: e.Setter("slow", "execution.isolation.thread.timeoutInMilliseconds", "300")})

	done := goGet(c, srv.URL)
	<-entered
	e.Clock.Advance(300 * time.Millisecond)
	require.ErrorIs(t, (<-done).err, command.ErrTimeout)
	select {
	case <-serverSawCancel:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the request cancelled")
	}
	assert.EqualValues(t, 1, e.Count("slow", metrics.Timeout))
}

// TestTransportSlowBodyIsReadWholeAfterRoundTrip: the command ends with the response
// headers; the body keeps streaming afterwards, past the command's timeout, and is read
// whole.
func TestTransportSlowBodyIsReadWholeAfterRoundTrip(t *testing.T) {
	e := cmdtest.New(t)
	const chunks, size = 20, 1000
	roundTripped := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		for i := range chunks {
			w.Write([]byte(strings.Repeat(string(rune('a'+i)), size)))
			if err := rc.Flush(); err != nil {
				return
			}
			if i == 0 {
				<-roundTripped // the rest is sent after RoundTrip returned
			}
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	c := client(t, &Transport{Setter: e.Setter("download", "execution.isolation.thread.timeoutInMilliseconds", "300")})

	resp, err := c.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	close(roundTripped)
	e.Clock.Advance(time.Second) // well past the timeout: the command is over, the body is not
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Len(t, body, chunks*size)
	for i := range chunks {
		assert.Equal(t, strings.Repeat(string(rune('a'+i)), size), string(body[i*size:(i+1)*size]))
	}
	assert.EqualValues(t, 1, e.Count("download", metrics.Success))
	assert.Zero(t, e.Count("download", metrics.Timeout))
}

func TestTransportCallerCancellationEndsTheBodyRead(t *testing.T) {
	e := cmdtest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first"))
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := client(t, &Transport{Setter: e.Setter("endless")})

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	buf := make([]byte, 5)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	assert.Equal(t, "first", string(buf))
	cancel()
	read := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		read <- err
	}()
	select {
	case err := <-read:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		srv.CloseClientConnections()
		<-read
		t.Fatal("cancelling the request's context did not end the body read")
	}
}

func TestTransportTransportErrorIsAFailure(t *testing.T) {
	e := cmdtest.New(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c := client(t, &Transport{Setter: e.Setter("gone")})

	_, _, err := get(c, url)
	require.ErrorIs(t, err, command.ErrCommandFailed)
	assert.ErrorIs(t, err, syscall.ECONNREFUSED)
	assert.EqualValues(t, 1, e.Count("gone", metrics.Failure))
}

func TestTransportFallbackReplacesFailuresAndTheFailedBodyIsClosed(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusBadGateway)
	base := newTracking()
	var causes []error
	c := client(t, &Transport{Base: base, Setter: e.Setter("fb"),
		Fallback: func(req *http.Request, err error) (*http.Response, error) {
			causes = append(causes, err)
			return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("cached")), Request: req}, nil
		}})

	for range 3 {
		resp, body, err := get(c, be.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "cached", body)
		assert.True(t, (<-base.bodies).closed.Load(), "the 502's body is closed, not leaked")
	}
	e.Tick(200 * time.Millisecond)
	resp, body, err := get(c, be.URL)
	require.NoError(t, err)
	assert.Equal(t, "cached", body)
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	require.Len(t, causes, 4)
	var se *StatusError
	require.ErrorAs(t, causes[0], &se)
	assert.Equal(t, http.StatusBadGateway, se.Response.StatusCode)
	assert.Equal(t, "502 Bad Gateway from GET "+be.URL, se.Error())
	assert.ErrorIs(t, causes[3], command.ErrShortCircuited)
	assert.EqualValues(t, 4, e.Count("fb", metrics.FallbackSuccess))
}

func TestTransportFallbackMayHandBackTheFailedResponse(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusInternalServerError)
	base := newTracking()
	c := client(t, &Transport{Base: base, Setter: e.Setter("fb"),
		Fallback: func(req *http.Request, err error) (*http.Response, error) {
			var se *StatusError
			if errors.As(err, &se) {
				return se.Response, nil
			}
			return nil, err
		}})
	resp, body, err := get(c, be.URL)
	require.NoError(t, err)
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Equal(t, "Internal Server Error", body, "the body was still open for the caller")
}

func TestTransportFallbackErrorReachesTheCaller(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusServiceUnavailable)
	base := newTracking()
	errNoCache := errors.New("nothing cached")
	orphan := &trackedBody{ReadCloser: io.NopCloser(strings.NewReader(""))}
	c := client(t, &Transport{Base: base, Setter: e.Setter("fb"),
		Fallback: func(req *http.Request, err error) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusOK, Body: orphan}, errNoCache
		}})
	_, _, err := get(c, be.URL)
	require.ErrorIs(t, err, command.ErrCommandFailed)
	var ce *command.Error
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, errNoCache, ce.FallbackErr)
	assert.True(t, (<-base.bodies).closed.Load(), "the 503's body is closed")
	assert.True(t, orphan.closed.Load(), "a response returned with an error is closed")
}

func TestTransportRejectionClosesTheUnsentRequestBody(t *testing.T) {
	e := cmdtest.New(t)
	entered, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
	}))
	defer srv.Close()
	c := client(t, &Transport{Setter: e.Setter("narrow", "execution.isolation.semaphore.maxConcurrentRequests", "1")})

	first := goGet(c, srv.URL)
	<-entered
	body := &trackedBody{ReadCloser: io.NopCloser(strings.NewReader("payload"))}
	_, err := c.Post(srv.URL, "text/plain", body)
	require.ErrorIs(t, err, command.ErrSemaphoreRejected)
	assert.True(t, body.closed.Load(), "RoundTrip closes the body of a request it never sent")
	close(release)
	require.NoError(t, (<-first).err)
	assert.EqualValues(t, 1, e.Count("narrow", metrics.SemaphoreRejected))
}

// TestTransportThreadIsolationClosesALateResponse: under THREAD isolation without
// interruptOnTimeout the caller gets the timeout while the request goes on; the answer
// that arrives afterwards is closed by the abandoned run.
func TestTransportThreadIsolationClosesALateResponse(t *testing.T) {
	e := cmdtest.New(t)
	entered, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		io.WriteString(w, "late")
	}))
	defer srv.Close()
	base := newTracking()
	c := client(t, &Transport{Base: base, Setter: e.Setter("pooled",
		"execution.isolation.strategy", "THREAD",
		"execution.isolation.thread.timeoutInMilliseconds", "300",
		"execution.isolation.thread.interruptOnTimeout", "false")})

	done := goGet(c, srv.URL)
	<-entered
	e.Clock.Advance(300 * time.Millisecond)
	require.ErrorIs(t, (<-done).err, command.ErrTimeout, "the caller does not wait for the late answer")
	close(release)
	late := <-base.bodies
	require.Eventually(t, late.closed.Load, 10*time.Second, time.Millisecond)
}

func TestTransportDefaultKeyIsMethodAndHost(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusOK)
	s := e.Setter("")
	c := client(t, &Transport{Setter: s})
	_, _, err := get(c, be.URL)
	require.NoError(t, err)
	key := "GET " + strings.TrimPrefix(be.URL, "http://")
	assert.EqualValues(t, 1, e.Count(key, metrics.Success))
	group, _ := e.RT.CommandKeys(key)
	assert.Equal(t, key, group)
}

// The Transport passes the criticality its request's context was given on to the next
// service in Hystrix-Criticality: set with adaptive.WithCriticality, or taken by
// Middleware from the incoming request, so a chain of services sheds the same requests
// first. A header the caller set stands, and the caller's request is left as it was.
func TestTransportPassesTheCriticalityOn(t *testing.T) {
	e := cmdtest.New(t)
	seen := make(chan string, 1)
	next := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get(CriticalityHeader)
	}))
	t.Cleanup(next.Close)
	c := client(t, &Transport{Setter: e.Setter("next")})
	call := func(ctx context.Context, header string) string {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next.URL, nil)
		require.NoError(t, err)
		if header != "" {
			req.Header.Set(CriticalityHeader, header)
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, header, req.Header.Get(CriticalityHeader), "the caller's request is unchanged")
		return <-seen
	}
	sheddable := adaptive.WithCriticality(context.Background(), adaptive.Sheddable)
	assert.Equal(t, "SHEDDABLE", call(sheddable, ""))
	assert.Equal(t, "", call(context.Background(), ""), "nothing when the context was given none")
	assert.Equal(t, "CRITICAL_PLUS", call(sheddable, "CRITICAL_PLUS"), "the caller's header stands")

	// a service in the middle: Middleware reads the header, its handler calls the next one
	middle := httptest.NewServer((&Middleware{Setter: e.Setter("middle")}).Wrap(http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) {
			req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, next.URL, nil)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			resp, err := c.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			resp.Body.Close()
		})))
	t.Cleanup(middle.Close)
	req, err := http.NewRequest(http.MethodGet, middle.URL, nil)
	require.NoError(t, err)
	req.Header.Set(CriticalityHeader, "sheddable-plus")
	front := &http.Transport{}
	t.Cleanup(front.CloseIdleConnections)
	resp, err := (&http.Client{Transport: front}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "SHEDDABLE_PLUS", <-seen)
}
