package hystrixhttp

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// answering is a base transport that answers its n-th request (from 1) 503 when fails(n)
// says so and 200 otherwise, each with a body of its own ("n"); the first request of a
// hedging key answers only after 2 ms (or when cancelled), so that hedges start.
type answering struct {
	fails  func(n int32) bool
	slow   bool
	n      atomic.Int32
	mu     sync.Mutex
	bodies []*countedBody
}

func (a *answering) RoundTrip(req *http.Request) (*http.Response, error) {
	n := a.n.Add(1)
	if n == 1 && a.slow {
		select {
		case <-req.Context().Done():
		case <-time.After(2 * time.Millisecond):
		}
	}
	body := newCountedBody(strconv.Itoa(int(n)))
	a.mu.Lock()
	a.bodies = append(a.bodies, body)
	a.mu.Unlock()
	status := http.StatusOK
	if a.fails(n) {
		status = http.StatusServiceUnavailable
	}
	return &http.Response{StatusCode: status, Body: body, Request: req}, nil
}

// Every isolation x breaker x retry, hedge, budget, rate limit, fault x a dependency up,
// failing once, down, through Transport: the caller gets an attempt's response whole (or
// a *command.Error when no attempt reached the dependency), every body is closed exactly
// once (the caller's by the caller), every attempt has one outcome, and the key has
// nothing in flight.
func TestTransportStagesMatrix(t *testing.T) {
	stages := []struct {
		name  string
		slow  bool
		props []string
	}{
		{"plain", false, nil},
		{"retry", false, []string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "1"}},
		{"hedge", true, []string{"hedge.maxHedges", "2", "hedge.delayInMilliseconds", "1"}},
		{"retry+hedge", true, []string{"retry.maxAttempts", "2", "retry.backoffInMilliseconds", "1",
			"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "1"}},
		{"retry, no budget left", false, []string{"retry.maxAttempts", "3", "budget.percent", "0", "budget.minPerSecond", "0"}},
		{"retry, rate limit", false, []string{"retry.maxAttempts", "3", "retry.backoffInMilliseconds", "1",
			"rateLimit.enabled", "true", "rateLimit.permitsPerSecond", "0.001", "rateLimit.burst", "1"}},
		{"hedge, fault", true, []string{"hedge.maxHedges", "1", "hedge.delayInMilliseconds", "1",
			"faultInjection.enabled", "true", "faultInjection.percentage", "50"}},
	}
	deps := []struct {
		name  string
		fails func(int32) bool
	}{
		{"up", func(int32) bool { return false }},
		{"fails once", func(n int32) bool { return n == 1 }},
		{"down", func(int32) bool { return true }},
	}
	outcomes := []metrics.EventType{metrics.Success, metrics.Failure, metrics.Timeout, metrics.Cancelled,
		metrics.ShortCircuited, metrics.SemaphoreRejected, metrics.ThreadPoolRejected, metrics.AdaptiveRejected,
		metrics.RateLimited}
	for _, iso := range []string{"SEMAPHORE", "THREAD", "ADAPTIVE"} {
		for _, brk := range []string{"true", "false"} {
			for _, st := range stages {
				for _, dep := range deps {
					t.Run(iso+"/breaker="+brk+"/"+st.name+"/"+dep.name, func(t *testing.T) {
						e := cmdtest.New(t)
						base := &answering{fails: dep.fails, slow: st.slow}
						s := e.Setter("M", append([]string{"execution.isolation.strategy", iso,
							"circuitBreaker.enabled", brk}, st.props...)...)
						s.ThreadPoolKey = "MPool"
						tr := &Transport{Base: base, Setter: s}
						stop := e.Clock.Run(time.Millisecond, 20*time.Microsecond)
						req, _ := http.NewRequest(http.MethodGet, "http://matrix.invalid/", nil)
						resp, err := tr.RoundTrip(req)
						stop()
						if err == nil {
							body, err := io.ReadAll(resp.Body)
							require.NoError(t, err, "the caller's body is whole")
							n, _ := strconv.Atoi(string(body))
							assert.True(t, n >= 1 && n <= int(base.n.Load()), "an attempt's body: %q", body)
							assert.Equal(t, dep.fails(int32(n)), resp.StatusCode != http.StatusOK, "with its own status")
							resp.Body.Close()
						} else {
							var ce *command.Error
							assert.ErrorAs(t, err, &ce, "an attempt refused last (rate limit, short circuit, rejection)")
						}
						e.Settled(t, "M")
						var got int64
						var retries, hedges int64
						for i := range 8 { // a hedge's loser counts itself on its own goroutine: 50 ms to 6.4 s apart
							got, retries, hedges = 0, e.Count("M", metrics.Retry), e.Count("M", metrics.Hedge)
							for _, ev := range outcomes {
								got += e.Count("M", ev)
							}
							if got == 1+retries+hedges {
								break
							}
							time.Sleep(50 * time.Millisecond << i)
						}
						assert.Equal(t, 1+retries+hedges, got, "one outcome per attempt")
						require.Eventually(t, func() bool {
							base.mu.Lock()
							defer base.mu.Unlock()
							for _, b := range base.bodies {
								if b.closes.Load() != 1 {
									return false
								}
							}
							return true
						}, 5*time.Second, time.Millisecond, "every body closed exactly once")
					})
				}
			}
		}
	}
}
