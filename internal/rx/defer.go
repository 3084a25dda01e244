package rx

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/reactivex/rxgo/v2"
)

// Defer returns a cold observable that calls f once per subscription, with the
// subscriber's context, and emits its result as one value item or one error item.
// Unlike rxgo.Just it uses no reflection. A panic in f becomes an error item (wrapping the
// panic value when it is an error) instead of crashing the process, because f runs on a
// producer goroutine where no caller could recover it.
func Defer[T any](f func(ctx context.Context) (T, error)) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		v, err := call(ctx, f)
		if err != nil {
			rxgo.Error(err).SendContext(ctx, next)
			return
		}
		rxgo.Of(v).SendContext(ctx, next)
	}})
}

// Error returns a cold observable that emits err as its only item on every subscription.
func Error(err error) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		rxgo.Error(err).SendContext(ctx, next)
	}})
}

// call runs f and turns a panic into an error.
func call[T any](ctx context.Context, f func(ctx context.Context) (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("observable: Defer function panicked: %w\n%s", e, debug.Stack())
				return
			}
			err = fmt.Errorf("observable: Defer function panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return f(ctx)
}
