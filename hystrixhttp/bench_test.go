//go:build !race

package hystrixhttp

import (
	"net/http"
	"testing"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
)

// nopWriter is a ResponseWriter that keeps nothing, so that a benchmark of Wrap measures
// the middleware and not a recorder.
type nopWriter struct{ h http.Header }

func (w nopWriter) Header() http.Header       { return w.h }
func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }
func (nopWriter) WriteHeader(int)             {}

// BenchmarkTransport is one GET through a Transport on a stub base transport: the cost of
// a request's command, its key's lookup included.
func BenchmarkTransport(b *testing.B) {
	e := cmdtest.New(b)
	tr := &Transport{Base: stub{}, Setter: e.Setter("bench", "circuitBreaker.enabled", "false")}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := tr.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkMiddleware is one request through Wrap to a handler that writes 200.
func BenchmarkMiddleware(b *testing.B) {
	e := cmdtest.New(b)
	m := &Middleware{Setter: e.Setter("bench", "circuitBreaker.enabled", "false")}
	h := m.Wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	w := nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}
