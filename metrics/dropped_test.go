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

// TestDroppedEventsAreCountedAndLogged stalls the consumer (a health listener that blocks
// the roll goroutine, so the bucket stream cannot hand over its next tick): events beyond
// the buffer are dropped, counted and logged; every event is either counted or dropped.
func TestDroppedEventsAreCountedAndLogged(t *testing.T) {
	var logs syncbuf.Buffer
	e := newEnv(t, WithBufferSize(16), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	m := e.r.Command("K")
	release := make(chan struct{})
	entered := make(chan struct{})
	var once sync.Once
	m.OnHealthCounts(func(HealthCounts) {
		once.Do(func() { close(entered); <-release })
	})
	m.MarkComplete(result(Success))
	published := 1
	e.r.Flush()
	e.clk.Advance(500 * time.Millisecond) // the first snapshot: the listener blocks
	<-entered
	e.clk.Advance(300 * time.Millisecond) // the stream now waits to hand over a tick
	for e.r.Dropped() == 0 {
		m.MarkComplete(result(Success))
		published++
		require.Less(t, published, 10_000_000, "the consumer never stalled")
	}
	dropped := int(e.r.Dropped()) // final: a publish is enqueued or dropped when it is made
	close(release)
	e.advance(time.Second)

	assert.Positive(t, dropped)
	assert.Equal(t, published, int(m.CumulativeCount(Success))+dropped, "counted or dropped, never lost silently")
	assert.Contains(t, logs.String(), "metrics: events dropped")
}
