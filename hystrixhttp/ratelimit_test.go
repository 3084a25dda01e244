package hystrixhttp

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/cmdtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Beyond the key's rate, the middleware answers 429 with Retry-After (when the limiter has
// a permit again, in whole seconds rounded up) and the handler is not called.
func TestMiddlewareRateLimitedAnswers429(t *testing.T) {
	e := cmdtest.New(t)
	h := &switchable{}
	h.status.Store(http.StatusOK)
	srv, c, _ := serve(t, &Middleware{Setter: e.Setter("work", "rateLimit.enabled", "true",
		"rateLimit.permitsPerSecond", "0.4", "rateLimit.burst", "2")}, h)
	for range 2 {
		resp, _, err := get(c, srv.URL+"/work")
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	}
	resp, body, err := get(c, srv.URL+"/work")
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "Too Many Requests\n", body)
	assert.Equal(t, "3", resp.Header.Get("Retry-After"), "a permit every 2.5 s: 3 s")
	assert.EqualValues(t, 2, h.hits.Load())

	e.Clock.Advance(2 * time.Second)
	resp, _, err = get(c, srv.URL+"/work")
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"), "0.5 s: at least 1")
	e.Clock.Advance(500 * time.Millisecond)
	resp, _, err = get(c, srv.URL+"/work")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 2, e.Count("work", metrics.RateLimited))
}

// The client side: the request is not sent, and the error says why and when to retry.
func TestTransportRateLimitedIsAClearError(t *testing.T) {
	e := cmdtest.New(t)
	be := newBackend(t, http.StatusOK)
	c := client(t, &Transport{Setter: e.Setter("backend", "rateLimit.enabled", "true",
		"rateLimit.permitsPerSecond", "10", "rateLimit.burst", "1")})
	resp, _, err := get(c, be.URL)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, _, err = get(c, be.URL)
	require.ErrorIs(t, err, command.ErrRateLimited)
	var rl *command.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 100*time.Millisecond, rl.RetryAfter)
	assert.Contains(t, err.Error(), "backend was rate limited and no fallback available (cause: command: rate limited "+
		"(group backend, no permit within maxWait, retry after 100ms))")
	assert.EqualValues(t, 1, be.hits.Load(), "the refused request was not sent")
}
