package bulkhead

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTaskQueueFIFOAcrossWrapAndGrowth(t *testing.T) {
	q := newTaskQueue(20)
	var got []int
	task := func(i int) Task { return funcTask(func() { got = append(got, i) }) }

	next := 0
	for round := range 4 { // push 4 more than we pop each round: wraps, then grows
		for range 7 {
			require.True(t, q.push(task(next)), "round %d", round)
			next++
		}
		for range 3 {
			q.pop().Run()
		}
	}
	for q.len() < 20 {
		require.True(t, q.push(task(next)))
		next++
	}
	assert.False(t, q.push(task(-1)), "push beyond the limit")
	for q.len() > 0 {
		q.pop().Run()
	}
	assert.Nil(t, q.pop())
	want := make([]int, next)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, got)
	assert.LessOrEqual(t, len(q.buf), 20, "buffer never exceeds the limit")
}

func TestTaskQueueZeroLimitRejects(t *testing.T) {
	q := newTaskQueue(0)
	assert.False(t, q.push(funcTask(func() {})))
	assert.Equal(t, 0, q.len())
}
