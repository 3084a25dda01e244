package observable

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/reactivex/rxgo/v2"
)

// ErrEmpty is the error of a Future whose observable completed without a value.
var ErrEmpty = errors.New("observable: completed without a value")

// Future is the pending outcome of one subscription: its first value or its first error.
// It is safe for concurrent use.
type Future[T any] struct {
	cancel context.CancelFunc
	done   chan struct{}
	v      T
	err    error
}

// ToFuture subscribes to obs with a child of ctx and returns the future of its outcome.
// The future resolves at the first item: a value of type T (nil stands for T's zero
// value; another type is an error), or an error item. It also resolves when obs completes
// empty (ErrEmpty) or the subscription's context ends (the context's cause). After a
// first value the subscription runs on, unobserved, until obs terminates, so operators
// upstream see a completion rather than an unsubscribe; Cancel ends it early. ToFuture
// uses one goroutine, which ends with the subscription.
func ToFuture[T any](ctx context.Context, obs rxgo.Observable) *Future[T] {
	sub, cancel := context.WithCancel(ctx)
	f := &Future[T]{cancel: cancel, done: make(chan struct{})}
	go f.await(sub, obs.Observe(rxgo.WithContext(sub)))
	return f
}

// Get waits for the outcome or for ctx to end (then it returns ctx's error and leaves the
// subscription running).
func (f *Future[T]) Get(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.v, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Cancel ends the subscription; a future not yet resolved resolves with context.Canceled.
func (f *Future[T]) Cancel() { f.cancel() }

// Done is closed once the outcome is known.
func (f *Future[T]) Done() <-chan struct{} { return f.done }

// await resolves f from the first item of ch, then drains ch until the subscription ends.
func (f *Future[T]) await(ctx context.Context, ch <-chan rxgo.Item) {
	defer f.cancel()
	select {
	case it, ok := <-ch:
		switch {
		case !ok && ctx.Err() != nil:
			f.err = context.Cause(ctx)
		case !ok:
			f.err = ErrEmpty
		case it.Error():
			f.err = it.E
		default:
			f.v, f.err = valueOf[T](it.V)
		}
	case <-ctx.Done():
		f.err = context.Cause(ctx)
	}
	close(f.done)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-ctx.Done():
			return
		}
	}
}

// valueOf converts an item value to T.
func valueOf[T any](v any) (T, error) {
	t, ok := v.(T)
	if !ok && v != nil {
		return t, fmt.Errorf("observable: future of %v got a value of type %T", reflect.TypeFor[T](), v)
	}
	return t, nil
}
