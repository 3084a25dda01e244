//go:build !race

package rx

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A known outcome's observable costs no allocation, and a subscription its pre-filled
// channel (2: the items hold pointers, so the buffer is allocated apart) and, for a value
// rxgo boxes, the box (the race detector changes allocation counts, so this runs without it).
func TestFutureObservableAllocations(t *testing.T) {
	var f Future[int]
	f.Complete(1<<20, nil)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = f.Observable() }))
	assert.Equal(t, 3.0, testing.AllocsPerRun(100, func() {
		for range f.Observable().Observe() {
		}
	}))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = f.Get(context.Background()) }))
}
