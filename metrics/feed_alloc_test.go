//go:build !race

package metrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestFeedsAllocateNothingOnTheCommandPath: MarkComplete allocates nothing with no
// subscriber, with a subscriber whose buffer has room, and with one whose buffer is full.
func TestFeedsAllocateNothingOnTheCommandPath(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	done := result(Success).withExecuted(false).withExecutionLatency(time.Millisecond)
	mark := func() { m.MarkStart(); m.MarkComplete(done) }
	assert.Zero(t, testing.AllocsPerRun(100, mark), "no subscriber")

	feed := e.r.Completions(WithFeedBuffer(200))
	observe(t, feed) // never read: the producer holds one item, the buffer the rest
	awaitSubscriptions(t, e.r, 1)
	sub := e.r.feed.subs.Load().completions[0]
	mark()
	for deadline := time.Now().Add(feedWait); len(sub.buf) != 0; time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatal("the producer did not take the first item")
		}
	}
	assert.Zero(t, testing.AllocsPerRun(100, mark), "a buffer with room")
	assert.Zero(t, testing.AllocsPerRun(200, mark), "a full buffer")
	assert.Positive(t, feed.Missed(), "the buffer was full")
}
