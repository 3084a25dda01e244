package metrics

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

func result(events ...EventType) ExecutionResult {
	var r ExecutionResult
	for _, e := range events {
		r = r.WithEvent(e)
	}
	return r
}

func TestHealthCountsFromStream(t *testing.T) {
	tests := []struct {
		name    string
		results []ExecutionResult
		want    HealthCounts
	}{
		{"none", nil, HealthCounts{}},
		{"successes", []ExecutionResult{result(Success), result(Emit, Success)}, HealthCounts{2, 0, 0}},
		{"fallback outcomes count through the failure", []ExecutionResult{
			result(Failure, FallbackSuccess), result(Failure, FallbackFailure),
			result(Failure, FallbackMissing), result(Success)}, HealthCounts{4, 3, 75}},
		{"rejections and timeouts are errors", []ExecutionResult{
			result(Timeout, FallbackSuccess), result(ThreadPoolRejected, FallbackSuccess),
			result(SemaphoreRejected, FallbackRejection), result(Success)}, HealthCounts{4, 3, 75}},
		{"bad requests, short circuits and cache hits do not count", []ExecutionResult{
			result(BadRequest), result(ShortCircuited, FallbackSuccess),
			result(ResponseFromCache), result(Success), result(Failure, FallbackSuccess),
			result(Failure, FallbackSuccess)}, HealthCounts{3, 2, 66}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			m := e.r.Command("K")
			for _, r := range tt.results {
				m.MarkComplete(r)
			}
			e.advance(400 * time.Millisecond)
			assert.Equal(t, HealthCounts{}, m.HealthCounts(), "the bucket in progress does not count")
			e.advance(100 * time.Millisecond)
			assert.Equal(t, tt.want, m.HealthCounts())
		})
	}
}

func TestHealthCountsAgeOut(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	m.MarkComplete(result(Failure, FallbackSuccess)) // bucket [0, 500ms)
	e.advance(time.Second)
	m.MarkComplete(result(Success)) // bucket [1s, 1.5s)
	e.advance(500 * time.Millisecond)
	assert.Equal(t, HealthCounts{2, 1, 50}, m.HealthCounts())

	// the window is 10s / 500ms = 20 closed buckets: at 10s [0, 500ms) is still in it
	e.advance(8500 * time.Millisecond)
	assert.Equal(t, HealthCounts{2, 1, 50}, m.HealthCounts())
	e.advance(500 * time.Millisecond)
	assert.Equal(t, HealthCounts{1, 0, 0}, m.HealthCounts(), "the first bucket aged out")
	e.advance(time.Second)
	assert.Equal(t, HealthCounts{}, m.HealthCounts(), "quiet key: everything aged out")
}

func TestOnHealthCountsAndReset(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	var mu sync.Mutex
	var seen []HealthCounts
	cancel := m.OnHealthCounts(func(h HealthCounts) {
		mu.Lock()
		seen = append(seen, h)
		mu.Unlock()
	})
	got := func() []HealthCounts {
		mu.Lock()
		defer mu.Unlock()
		return append([]HealthCounts(nil), seen...)
	}
	for range 3 {
		m.MarkComplete(result(Failure, FallbackSuccess))
	}
	m.MarkComplete(result(Success))
	e.advance(time.Second)
	assert.Equal(t, []HealthCounts{{4, 3, 75}, {4, 3, 75}}, got(), "one snapshot per interval")

	m.ResetHealthCounts()
	assert.Equal(t, HealthCounts{}, m.HealthCounts(), "reset reads zero at once")
	m.MarkComplete(result(Success))
	e.advance(500 * time.Millisecond)
	assert.Equal(t, HealthCounts{1, 0, 0}, m.HealthCounts(), "old buckets are gone after a reset")
	assert.Equal(t, HealthCounts{1, 0, 0}, got()[2])

	cancel()
	cancel()
	e.advance(time.Second)
	assert.Len(t, got(), 3, "no delivery after cancel")
}

func TestHealthListenersStopWhenKeyIsQuiet(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	var n int
	var mu sync.Mutex
	m.OnHealthCounts(func(HealthCounts) { mu.Lock(); n++; mu.Unlock() })
	m.MarkComplete(result(Success))
	e.advance(11 * time.Second)
	mu.Lock()
	calls := n
	mu.Unlock()
	// 0.5s .. 10.5s (the failure ages out at 10.5s), and 11s when the 1s stats bucket goes
	require.Equal(t, 22, calls, "a snapshot every 500ms until every window is empty")
	e.advance(5 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, calls, n, "an idle key costs nothing per tick")
}

// TestPanickingHealthListenerIsContained: a listener that panics is logged; the other
// listeners still get the snapshot, and the roll goes on.
func TestPanickingHealthListenerIsContained(t *testing.T) {
	var logs syncbuf.Buffer
	e := newEnv(t, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	m := e.r.Command("K")
	var got []HealthCounts
	m.OnHealthCounts(func(HealthCounts) { panic("listener bug") })
	m.OnHealthCounts(func(h HealthCounts) { got = append(got, h) })
	m.MarkComplete(result(Success))
	e.advance(time.Second)
	assert.Equal(t, []HealthCounts{{1, 0, 0}, {1, 0, 0}}, got)
	assert.Contains(t, logs.String(), "metrics: health listener panicked")
	assert.Contains(t, logs.String(), "listener bug")
}
