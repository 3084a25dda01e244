package observable

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/rx"
)

var errBoom = errors.New("boom")

// canceler counts Cancel calls.
type canceler struct{ n atomic.Int32 }

func (c *canceler) Cancel() { c.n.Add(1) }

// A user's Future is its producer's: each method reads the outcome the producer set, and
// Cancel reaches the producer while the outcome is pending.
func TestFutureIsItsProducers(t *testing.T) {
	c := &canceler{}
	p := &rx.Future[string]{}
	p.SetCanceler(c)
	f := (*Future[string])(p)
	assert.False(t, f.Ready())
	done := f.Done()
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := f.Get(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "Get gives up with its own context")
	f.Cancel()
	assert.EqualValues(t, 1, c.n.Load(), "a pending future's Cancel reaches the producer")

	p.Complete("v", errBoom)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed by the producer's Complete")
	}
	assert.True(t, f.Ready())
	v, err := f.Get(context.Background())
	assert.Equal(t, "v", v)
	assert.ErrorIs(t, err, errBoom)
	f.Cancel()
	assert.EqualValues(t, 1, c.n.Load(), "a done future's Cancel does not reach the producer")

	for range 2 {
		var items []rxgo.Item
		for it := range f.Observable().Observe() {
			items = append(items, it)
		}
		require.Len(t, items, 1)
		assert.ErrorIs(t, items[0].E, errBoom, "every subscriber gets the outcome")
	}
}

func TestErrEmptyIsTheProducers(t *testing.T) {
	_, err := (*Future[int])(rx.ToFuture[int](context.Background(), rxgo.Empty())).Get(context.Background())
	assert.ErrorIs(t, err, ErrEmpty)
}
