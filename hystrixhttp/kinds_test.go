package hystrixhttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// okBase answers every request 200 with a body, without a network.
type okBase struct{}

func (okBase) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("OK"))}, nil
}

// pathKey names a request's command after its path.
func pathKey(r *http.Request) string { return r.URL.Path }

// Each key is defined once, on its first request, and its later requests are commands
// of its Kind: no request compares the Setter with its key's again. The Transport, the
// StreamTransport and the Middleware each keep their own.
func TestRequestsOfAKeyAreCommandsOfOneKind(t *testing.T) {
	e := cmdtest.New(t)
	paths := []string{"/a", "/b", "/a", "/a", "/b", "/a", "/a"}
	tr := &Transport{Base: okBase{}, Setter: e.Setter(""), Key: pathKey}
	st := &StreamTransport{Base: okBase{}, Setter: e.Setter(""), Key: func(r *http.Request) string { return "stream " + r.URL.Path }}
	m := &Middleware{Setter: e.Setter(""), Key: func(r *http.Request) string { return "server " + r.URL.Path }}
	h := m.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "OK") }))
	for _, p := range paths {
		for _, rt := range []http.RoundTripper{tr, st} {
			req, _ := http.NewRequest(http.MethodGet, "http://backend"+p, nil)
			resp, err := rt.RoundTrip(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, "OK", string(body))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		assert.Equal(t, http.StatusOK, rec.Code)
	}
	e.Settled(t, "stream /a")
	e.Settled(t, "stream /b")
	assert.EqualValues(t, 2, tr.kinds.Defines(), "Transport: one Define per key")
	assert.EqualValues(t, 2, st.kinds.Defines(), "StreamTransport: one Define per key")
	assert.EqualValues(t, 2, m.kinds.Defines(), "Middleware: one Define per key")
	assert.NotNil(t, tr.kinds.Kind("/a"))
	assert.NotNil(t, tr.kinds.Kind("/b"))
	assert.NotNil(t, st.kinds.Kind("stream /a"))
	assert.NotNil(t, m.kinds.Kind("server /b"))
	assert.EqualValues(t, 5, e.Count("/a", metrics.Success))
}

// A key the application defined with other settings keeps them: the Transport's requests
// run on them, as with command.New, instead of failing.
func TestTransportOnAKeyTheApplicationDefined(t *testing.T) {
	e := cmdtest.New(t)
	app := e.Setter("app", "execution.isolation.strategy", "THREAD")
	_, err := command.Define[int](app)
	require.NoError(t, err)
	tr := &Transport{Base: okBase{}, Setter: e.Setter("app")}
	for range 3 {
		req, _ := http.NewRequest(http.MethodGet, "http://backend/", nil)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Nil(t, tr.kinds.Kind("app"), "Define refused the Transport's Setter: command.New per request")
	assert.EqualValues(t, 3, e.Count("app", metrics.Success))
	props, err := e.RT.Config().Command("app", nil)
	require.NoError(t, err)
	assert.Equal(t, config.Thread, config.ExecutionIsolationStrategy.In(props).Get(), "the application's settings stand")
}
