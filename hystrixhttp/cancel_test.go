package hystrixhttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// However the caller gives up on a request (http.Client.Timeout, which net/http fires
// through the request's Cancel channel as well as its context, the request's context, or
// its Cancel channel), the command is CANCELLED, never a FAILURE that would count against
// the breaker: 1,000 of 1,000 calls from 50 goroutines at once against a real server on
// 127.0.0.1 that answers after the caller has given up, under both isolations.
func TestTheCallersOwnCancellationIsNeverAFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	defer srv.Close()
	const calls, callers = 1000, 50
	ways := map[string]func(*http.Client, string) error{
		"Client.Timeout": func(c *http.Client, url string) error {
			timed := *c
			timed.Timeout = 5 * time.Millisecond
			_, err := timed.Get(url)
			return err
		},
		"request context": func(c *http.Client, url string) error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			_, err := c.Do(req)
			return err
		},
		"Request.Cancel": func(c *http.Client, url string) error {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			cancel := make(chan struct{})
			req.Cancel = cancel //nolint:staticcheck // the legacy way some callers still use
			timer := time.AfterFunc(5*time.Millisecond, func() { close(cancel) })
			defer timer.Stop()
			_, err := c.Do(req)
			return err
		},
	}
	for way, call := range ways {
		for _, iso := range []string{"SEMAPHORE", "THREAD"} {
			t.Run(way+"/"+iso, func(t *testing.T) {
				e := cmdtest.New(t)
				tr := &Transport{Setter: e.Setter("C", "execution.isolation.strategy", iso,
					"execution.isolation.semaphore.maxConcurrentRequests", "1000",
					"circuitBreaker.enabled", "false")}
				tr.Setter.ThreadPoolProperties = map[string]string{"coreSize": "1000"} // cancelled runs hold a worker until they return
				c := client(t, tr)
				var wg sync.WaitGroup
				work := make(chan struct{}, calls)
				for range calls {
					work <- struct{}{}
				}
				close(work)
				for range callers {
					wg.Go(func() {
						for range work {
							assert.Error(t, call(c, srv.URL))
						}
					})
				}
				wg.Wait()
				e.Await(t, "C", metrics.Cancelled, calls)
				e.Tick(time.Minute)
				m := e.RT.Metrics().Command("C")
				require.Equal(t, int64(0), m.CumulativeCount(metrics.Failure), "the caller's impatience counted against the dependency")
				counts := map[string]int64{}
				for _, ev := range metrics.AllEventTypes() {
					if n := m.CumulativeCount(ev); n != 0 {
						counts[ev.String()] = n
					}
				}
				assert.Equal(t, map[string]int64{"CANCELLED": calls}, counts, "every call, and nothing else")
			})
		}
	}
}
