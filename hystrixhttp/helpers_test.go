package hystrixhttp

import (
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// env is a fresh runtime on a fake clock. The clock starts at the real time because the
// run context's deadline (start + timeout on this clock) reaches net.Dialer.
type env struct {
	t   *testing.T
	rt  *command.Runtime
	clk *clock.Fake
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clk := clock.NewFake(time.Now())
	rt := command.NewRuntime(command.WithClock(clk))
	t.Cleanup(func() {
		rt.Metrics().Flush()
		rt.Close()
	})
	return &env{t: t, rt: rt, clk: clk}
}

// setter returns a Setter of key on the env's runtime with a breaker that trips on 3
// requests and health snapshots every 100 ms, plus the given property pairs.
func (e *env) setter(key string, kv ...string) command.Setter {
	props := config.Overrides{
		"circuitBreaker.requestVolumeThreshold":            "3",
		"circuitBreaker.sleepWindowInMilliseconds":         "1000",
		"metrics.healthSnapshot.intervalInMilliseconds":    "100",
		"execution.isolation.thread.timeoutInMilliseconds": "60000",
	}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return command.Setter{Runtime: e.rt, CommandKey: key, Properties: props}
}

// tick lets the metrics fold what was published, moves the clock by d and lets the
// health snapshots of the closed buckets reach the breaker.
func (e *env) tick(d time.Duration) {
	e.rt.Metrics().Flush()
	e.clk.Advance(d)
	e.rt.Metrics().Flush()
}

// count returns the cumulative count of ev for key, after moving the clock past the
// current metrics tick.
func (e *env) count(key string, ev metrics.EventType) int64 {
	e.tick(100 * time.Millisecond)
	return e.rt.Metrics().Command(key).CumulativeCount(ev)
}

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
