//go:build !race

package hystrixhttp

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
)

// stub answers every request 200 with a body of its own, without a network.
type stub struct{}

func (stub) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("OK"))}, nil
}

// A GET on a key that does not hedge allocates 8 times, the stub's response included:
// one less than when every call was marked WithoutHedge (a context value).
func TestTransportAllocsWithoutHedge(t *testing.T) {
	e := cmdtest.New(t)
	tr := &Transport{Base: stub{}, Setter: e.Setter("allocs", "circuitBreaker.enabled", "false")}
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
	allocs := testing.AllocsPerRun(200, func() {
		resp, err := tr.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
	})
	t.Logf("allocs per RoundTrip: %v", allocs)
	assert.LessOrEqual(t, allocs, 8.0)
}
