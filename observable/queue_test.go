package observable

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQueueSizeIsRoundedUpToAPowerOfTwo(t *testing.T) {
	for _, tc := range []struct{ size, want int }{{-1, 2}, {0, 2}, {1, 2}, {2, 2}, {3, 4}, {8, 8}, {1000, 1024}} {
		assert.Equal(t, tc.want, NewQueue[int](tc.size).Cap(), "size %d", tc.size)
	}
}

func TestQueueIsFIFOAndRefusesWhenFull(t *testing.T) {
	q := NewQueue[int](4)
	for lap := range 3 { // wraps around the ring
		for i := range 4 {
			require.True(t, q.Offer(lap*10+i))
		}
		assert.False(t, q.Offer(99), "full")
		assert.Equal(t, []int{lap * 10, lap*10 + 1, lap*10 + 2, lap*10 + 3}, pollAll(q))
		_, ok := q.Poll()
		assert.False(t, ok, "empty")
	}
	require.True(t, q.Offer(1))
	require.True(t, q.Offer(2))
	assert.Equal(t, 1, recv(t, q))
	require.True(t, q.Offer(3)) // room again after one poll
	assert.Equal(t, []int{2, 3}, pollAll(q))
}

func TestQueuePollReleasesTheItem(t *testing.T) {
	q := NewQueue[*int](2)
	v := 1
	q.Offer(&v)
	recv(t, q)
	assert.Nil(t, q.slots[0].v, "a polled slot keeps nothing alive")
}

func TestQueueReadyWakesTheParkedConsumer(t *testing.T) {
	q := NewQueue[int](4)
	ready := q.Ready()
	select {
	case <-ready:
		t.Fatal("woken with nothing offered")
	default:
	}
	go q.Offer(7)
	await(t, ready)
	assert.Equal(t, 7, recv(t, q))

	q.Offer(8)
	await(t, q.Ready()) // an item already there: at once
	assert.Equal(t, []int{8}, pollAll(q))
}

func TestQueueNudgesAPollingConsumerEveryHalfLap(t *testing.T) {
	q := NewQueue[int](8)
	for i := range 3 {
		require.True(t, q.Offer(i)) // positions 0-2: a nudge at position 0 only
	}
	await(t, q.Nudge())
	require.True(t, q.Offer(3))
	select {
	case <-q.Nudge():
		t.Fatal("nudged before the next half lap")
	default:
	}
	require.True(t, q.Offer(4)) // position 4: half the ring
	await(t, q.Nudge())
	assert.Equal(t, []int{0, 1, 2, 3, 4}, pollAll(q))
}

func TestQueueCloseWakesAndDrains(t *testing.T) {
	q := NewQueue[int](4)
	ready := q.Ready() // empty: parked
	go q.Close()
	await(t, ready)
	assert.True(t, q.Closed())
	assert.True(t, q.Done())

	q = NewQueue[int](4)
	q.Offer(1)
	q.Close()
	assert.False(t, q.Done(), "an item is left")
	assert.Equal(t, []int{1}, awaitDone(t, q))
	q.Close() // idempotent
	await(t, q.Ready())
}

// TestQueueConcurrentProducers: every item offered is polled exactly once, each
// producer's in order, while the consumer parks whenever it runs dry.
func TestQueueConcurrentProducers(t *testing.T) {
	const producers, each = 4, 20000
	q := NewQueue[int](64)
	var wg sync.WaitGroup
	var refused [producers]int
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				for !q.Offer(p*each + i) {
					refused[p]++
					time.Sleep(time.Microsecond) // full: let the consumer catch up
				}
			}
		}()
	}
	go func() { wg.Wait(); q.Close() }()

	last := [producers]int{-1, -1, -1, -1}
	n := 0
	for _, v := range awaitDone(t, q) {
		p, i := v/each, v%each
		require.Equal(t, last[p]+1, i, "producer %d: lost, duplicated or out of order", p)
		last[p] = i
		n++
	}
	assert.Equal(t, producers*each, n)
}
