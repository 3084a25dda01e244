//go:build !race

package command

import (
	"context"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAsyncDoorAllocations pins what the doors that do not wait allocate on the SEMAPHORE
// success path, drained as a user of RxGo drains them (bench/rxhystrix.go), with a value
// that rxgo boxes (the race detector changes allocation counts, so this runs without it).
func TestAsyncDoorAllocations(t *testing.T) {
	s := semaphoreSetter(NewRuntime())
	defer s.Runtime.Close()
	run := func(context.Context) (int, error) { return 1 << 20, nil }
	drained := func(open func(ctx context.Context) rxgo.Observable) func() {
		return func() {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := 0
			for it := range open(ctx).Observe(rxgo.WithContext(ctx)) {
				require.NoError(t, it.E)
				n++
			}
			require.Equal(t, 1, n)
		}
	}
	const subscriber = 5 // context.WithCancel 2, rxgo.WithContext 2, Observe's variadic slice 1
	for _, tc := range []struct {
		name string
		want float64
		call func()
	}{
		// the Command (its future is one of its fields)
		{"Queue+Get", 1, func() {
			f, err := New(s, run).Queue(context.Background())
			require.NoError(t, err)
			_, _ = f.Get(context.Background())
		}},
		// the Command, the subscription's pre-filled channel (2: an item holds pointers, so
		// its buffer is an allocation of its own), the boxed value
		{"Observe drained", subscriber + 4, drained(func(ctx context.Context) rxgo.Observable {
			return New(s, run).Observe(ctx)
		})},
		// the Command, the boxed value and what RxGo forces on a subscription with an
		// option (the observable is a view of the Command): rxgo.Defer 3 (its observable,
		// iterable and producer slice) and its subscription 3 (the options parsed, the
		// channel, the producer goroutine); the options go into the Defer as they are, so
		// that its Observe copies none
		{"ToObservable drained", subscriber + 8, drained(func(context.Context) rxgo.Observable {
			return New(s, run).ToObservable()
		})},
		// with no option: the Command; the subscription's channel (2, as above) and
		// goroutine (its arguments); the boxed value
		{"ToObservable drained without options", 5, func() {
			for it := range New(s, run).ToObservable().Observe() {
				require.NoError(t, it.E)
			}
		}},
	} {
		assert.Equal(t, tc.want, testing.AllocsPerRun(1000, tc.call), tc.name)
	}
}
