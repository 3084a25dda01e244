//go:build !race

package observable

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/internal/rx"
)

// A user's Future costs what its producer's does: a known outcome's observable and Get no
// allocation (the race detector changes allocation counts, so this runs without it).
func TestFutureAllocations(t *testing.T) {
	var p rx.Future[int]
	p.Complete(1<<20, nil)
	f := (*Future[int])(&p)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = f.Observable() }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = f.Get(context.Background()) }))
}
