package hystrixhttp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// sseServer serves numbered events 0..total-1 on 127.0.0.1, after Last-Event-ID when the
// request has one. cut(from) says after how many events of a connection it is cut
// (aborted: the client reads an unexpected EOF), -1 for never; stall, when true, leaves
// the stream open and silent after its first event.
func sseServer(t *testing.T, total int, cut func() int, stall bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		from := 0
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			n, err := strconv.Atoi(id)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			from = n + 1
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		after := cut()
		for i := from; i < total; i++ {
			if i-from == after {
				panic(http.ErrAbortHandler) // cut: no final chunk
			}
			fmt.Fprintf(w, "id: %d\ndata: %d\n\n", i, i)
			w.(http.Flusher).Flush()
			if stall {
				<-r.Context().Done()
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func sseRequest(url string) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	}
}

// sseSetter is a stream key of its own runtime with room for many streams and properties
// kv.
func sseSetter(t *testing.T, kv ...string) command.Setter {
	rt := command.NewRuntime()
	t.Cleanup(rt.Close)
	props := config.Overrides{"execution.isolation.semaphore.maxConcurrentRequests": "1000",
		"execution.timeout.enabled": "false", "circuitBreaker.requestVolumeThreshold": "100000"}
	for i := 0; i+1 < len(kv); i += 2 {
		props[kv[i]] = kv[i+1]
	}
	return command.Setter{Runtime: rt, CommandKey: "events", Properties: props}
}

// 1,000 SSE streams cut at random points, each connection again at random, resumed with
// Last-Event-ID: the subscriber gets every sequence number once, in order.
func TestSSEResumeLosesAndDuplicatesNothing(t *testing.T) {
	const streams, total = 1000, 30
	srv := sseServer(t, total, func() int {
		if rand.IntN(3) == 0 {
			return -1
		}
		return 1 + rand.IntN(total)
	}, false)
	s := sseSetter(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	construct, resume := SSE(client, sseRequest(srv.URL))
	var resumes sync.Map
	var wg sync.WaitGroup
	gate := make(chan struct{}, 50)
	for n := range streams {
		gate <- struct{}{}
		wg.Go(func() {
			defer func() { <-gate }()
			st := command.NewStream[Event](s, construct).WithResume(10*total, resume)
			var got []int
			for e, err := range st.Values(context.Background()) {
				if !assert.NoError(t, err) {
					return
				}
				v, err := strconv.Atoi(e.Data)
				assert.NoError(t, err)
				got = append(got, v)
			}
			want := make([]int, total)
			for i := range want {
				want[i] = i
			}
			assert.Equal(t, want, got, "0 lost, 0 duplicated")
			resumes.Store(n, st.Resumes())
		})
	}
	wg.Wait()
	sum := 0
	resumes.Range(func(_, v any) bool { sum += v.(int); return true })
	t.Logf("%d SSE streams of %d events: %d resumes", streams, total, sum)
	assert.Positive(t, sum)
}

// SSE streams that stall after their first event end at the idle limit, as
// MID_STREAM_FAILUREs with IDLE_TIMEOUT.
func TestSSEStalledStreamsEndAtTheIdleLimit(t *testing.T) {
	const n, idle = 20, 50 * time.Millisecond
	srv := sseServer(t, 10, func() int { return -1 }, true)
	s := sseSetter(t, "stream.idleTimeoutInMilliseconds", "50")
	client := &http.Client{}
	defer client.CloseIdleConnections()
	construct, _ := SSE(client, sseRequest(srv.URL))
	late := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			st := command.NewStream[Event](s, construct)
			var got time.Time
			for e, err := range st.Values(context.Background()) {
				if err != nil {
					assert.True(t, errors.Is(err, command.ErrStreamIdleTimeout), "%v", err)
					late[i] = time.Since(got) - idle
					break
				}
				assert.Equal(t, "0", e.Data)
				got = time.Now()
			}
			assert.Equal(t, []metrics.EventType{metrics.Emit, metrics.Failure, metrics.FallbackMissing,
				metrics.StreamIdleTimeout, metrics.StreamMidFailure}, st.ExecutionEvents())
		})
	}
	wg.Wait()
	slices.Sort(late)
	t.Logf("%d stalled SSE streams, idle limit %v: detected late by %v median, %v max", n, idle, late[n/2], late[n-1])
	assert.GreaterOrEqual(t, late[0], -time.Millisecond, "never before the limit")
}
