package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// localServer is a server on 127.0.0.1 whose handler answers 200 "ok", or 503 once
// failing is closed, and counts the requests it got.
func localServer(failing <-chan struct{}, hits *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-failing:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
		}
		io.WriteString(w, "ok")
	}))
}

// roundTrip GETs url through c and returns the status and the body, read whole and closed.
func roundTrip(c *http.Client, url string) (int, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// TestRoundTrippersBehaveAlike checks that the round trippers are configured alike: an
// answer passes through, failing answers open the breaker, and an open breaker answers
// with the fallback without a request.
func TestRoundTrippersBehaveAlike(t *testing.T) {
	for _, lib := range RoundTripLibs() {
		t.Run(lib.Name, func(t *testing.T) {
			failing := make(chan struct{})
			var hits atomic.Int32
			srv := localServer(failing, &hits)
			defer srv.Close()
			base := &http.Transport{}
			defer base.CloseIdleConnections()
			rt, release := lib.New("test-roundtrip-"+lib.Name, base, Defaults())
			defer release()
			c := &http.Client{Transport: rt}

			status, body, err := roundTrip(c, srv.URL)
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, status)
			assert.Equal(t, "ok", body)
			if lib.Name == "bare" {
				return
			}
			close(failing)
			require.Eventually(t, func() bool {
				before := hits.Load()
				status, body, err := roundTrip(c, srv.URL)
				return hits.Load() == before && err == nil && status == http.StatusOK && body == FallbackBody
			}, 5*time.Second, time.Millisecond, "failing answers open the breaker, which answers with the fallback")
		})
	}
}

// inMemory is a base transport that answers 200 "ok" without a network.
type inMemory struct{}

func (inMemory) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
		Body: io.NopCloser(strings.NewReader("ok"))}, nil
}

// benchRoundTrip runs one sub-benchmark per round tripper over base, GETting url and
// reading each body whole.
func benchRoundTrip(b *testing.B, name, url string, base http.RoundTripper) {
	for _, lib := range RoundTripLibs() {
		b.Run(lib.Name, func(b *testing.B) {
			rt, release := lib.New("bench-"+name+"-"+lib.Name, base, Defaults())
			defer release()
			c := &http.Client{Transport: rt}
			b.ReportAllocs()
			for b.Loop() {
				if status, body, err := roundTrip(c, url); status != http.StatusOK || body != "ok" || err != nil {
					b.Fatalf("got %d %q %v", status, body, err)
				}
			}
		})
	}
}

// BenchmarkRoundTrip: a GET to a server on 127.0.0.1 through each round tripper over one
// keep-alive http.Transport; the overhead of a wrapper is its time minus bare's.
func BenchmarkRoundTrip(b *testing.B) {
	var hits atomic.Int32
	srv := localServer(nil, &hits)
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	benchRoundTrip(b, "roundtrip", srv.URL, base)
}

// BenchmarkRoundTripInMemory: the same over a base transport that answers from memory,
// so that the wrappers' own cost is not lost in the network's noise.
func BenchmarkRoundTripInMemory(b *testing.B) {
	benchRoundTrip(b, "roundtripinmemory", "http://in.memory/", inMemory{})
}

// BenchmarkRoundTripInterleaved: the RoundTrip case with the three round trippers taking
// turns within every iteration (in rotating order), so that a busy machine slows them
// alike. ns/op covers one call of each; the custom metrics are each one's mean time per
// call, the overheads over bare and their ratio rxhystrix/failsafe.
func BenchmarkRoundTripInterleaved(b *testing.B) {
	var hits atomic.Int32
	srv := localServer(nil, &hits)
	defer srv.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	libs := RoundTripLibs()
	clients := make([]*http.Client, len(libs))
	for i, lib := range libs {
		rt, release := lib.New("bench-interleaved-"+lib.Name, base, Defaults())
		defer release()
		clients[i] = &http.Client{Transport: rt}
	}
	spent := make([]time.Duration, len(libs))
	calls := 0
	b.ReportAllocs()
	for b.Loop() {
		for j := range libs {
			k := (calls + j) % len(libs)
			start := time.Now()
			if status, body, err := roundTrip(clients[k], srv.URL); status != http.StatusOK || body != "ok" || err != nil {
				b.Fatalf("%s: got %d %q %v", libs[k].Name, status, body, err)
			}
			spent[k] += time.Since(start)
		}
		calls++
	}
	perCall := map[string]float64{}
	for k, lib := range libs {
		perCall[lib.Name] = float64(spent[k].Nanoseconds()) / float64(calls)
		b.ReportMetric(perCall[lib.Name], lib.Name+"-ns/call")
	}
	rx, fs := perCall["rxhystrix"]-perCall["bare"], perCall["failsafe"]-perCall["bare"]
	b.ReportMetric(rx, "rxhystrix-overhead-ns/call")
	b.ReportMetric(fs, "failsafe-overhead-ns/call")
	b.ReportMetric(rx/fs, "overhead-ratio")
}
