package observable

import (
	"context"

	"github.com/reactivex/rxgo/v2"
)

// DoOnTerminate returns a cold observable that mirrors src and calls f exactly once per
// subscription when src terminates: on its first error item (before passing the item on;
// src is then cancelled) or on completion (before the output completes). f is not called
// when the subscriber's context ends first; see DoOnUnsubscribe for that case. A
// completion that races with the end of the subscriber's context counts as an unsubscribe.
func DoOnTerminate(src rxgo.Observable, f func()) rxgo.Observable {
	return doOnEnd(src, f, nil)
}

// DoOnUnsubscribe returns a cold observable that mirrors src and calls f exactly once per
// subscription when the subscriber's context ends before src terminated (completion or
// error item), including while an item waits to be delivered. src is then cancelled.
func DoOnUnsubscribe(src rxgo.Observable, f func()) rxgo.Observable {
	return doOnEnd(src, nil, f)
}

// doOnEnd mirrors src and calls onTerminate or onUnsubscribe (either may be nil), never both.
func doOnEnd(src rxgo.Observable, onTerminate, onUnsubscribe func()) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		upCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		if forwardUntilEnd(ctx, src.Observe(rxgo.WithContext(upCtx)), next, onTerminate) {
			return
		}
		if onUnsubscribe != nil {
			onUnsubscribe()
		}
	}})
}

// forwardUntilEnd copies up to next and reports whether up terminated (calling
// onTerminate, if set, before the terminal is passed on) rather than ctx ending first.
func forwardUntilEnd(ctx context.Context, up <-chan rxgo.Item, next chan<- rxgo.Item, onTerminate func()) bool {
	for {
		select {
		case it, ok := <-up:
			if !ok && ctx.Err() != nil {
				return false
			}
			if !ok || it.Error() {
				if onTerminate != nil {
					onTerminate()
				}
				if ok {
					it.SendContext(ctx, next)
				}
				return true
			}
			if !it.SendContext(ctx, next) {
				return false
			}
		case <-ctx.Done():
			return false
		}
	}
}
