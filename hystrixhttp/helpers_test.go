package hystrixhttp

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// trackedBody records whether a body was closed.
type trackedBody struct {
	io.ReadCloser
	closed atomic.Bool
}

func (b *trackedBody) Close() error {
	b.closed.Store(true)
	return b.ReadCloser.Close()
}

// tracking is a base transport that wraps every response body in a trackedBody and
// hands it to the test.
type tracking struct {
	base   http.RoundTripper
	bodies chan *trackedBody
}

func newTracking() *tracking {
	return &tracking{base: http.DefaultTransport.(*http.Transport).Clone(), bodies: make(chan *trackedBody, 16)}
}

func (tr *tracking) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := tr.base.RoundTrip(req)
	if err == nil {
		b := &trackedBody{ReadCloser: resp.Body}
		resp.Body = b
		tr.bodies <- b
	}
	return resp, err
}
