package rx

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"
)

// ErrEmpty is the error of a Future whose observable completed without a value.
var ErrEmpty = errors.New("observable: completed without a value")

// Canceler is what a Future's Cancel calls: the producer's way of giving up the work.
type Canceler interface{ Cancel() }

// Future is the pending outcome of some work: a value or an error, set once by its
// producer with Complete and read by any number of goroutines with Get, Done and Ready.
//
// The zero Future is pending and has no canceler (SetCanceler gives it one); it may be a
// field of the producer's own struct (command.Command's serves Queue, Observe and
// request-cache hits). A Future must not be copied after first use. It takes no
// lock: Complete and Done meet on two atomics. Done makes its channel only when asked while
// the Future is still pending: a Future completed before anyone waits costs no channel.
type Future[T any] struct {
	state    atomic.Uint32                 // futurePending, futureCompleting or futureDone
	done     atomic.Pointer[chan struct{}] // made by the first Done of a pending future
	canceler Canceler
	v        T // written before futureDone, read after
	err      error
}

const (
	futurePending    uint32 = iota
	futureCompleting        // Complete won and is writing v and err
	futureDone
)

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// SetCanceler sets what Cancel calls; the producer calls it before handing the future out.
func (f *Future[T]) SetCanceler(c Canceler) { f.canceler = c }

// Complete resolves the future with v and err and wakes every waiter. Only the first call
// counts; it reports whether it was that one. Call it from the producer only.
func (f *Future[T]) Complete(v T, err error) bool {
	if !f.state.CompareAndSwap(futurePending, futureCompleting) {
		return false
	}
	f.v, f.err = v, err
	f.state.Store(futureDone)
	if ch := f.done.Load(); ch != nil { // a Done that saw the future pending stored it before
		close(*ch)
	}
	return true
}

// Ready reports whether the outcome is known (then Get returns it at once).
func (f *Future[T]) Ready() bool { return f.state.Load() == futureDone }

// Get waits for the outcome or for ctx to end (then it returns ctx's error; the work goes
// on: Cancel gives it up).
func (f *Future[T]) Get(ctx context.Context) (T, error) {
	if f.Ready() {
		return f.v, f.err
	}
	select {
	case <-f.Done():
		return f.v, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// Done is closed once the outcome is known.
func (f *Future[T]) Done() <-chan struct{} {
	if f.Ready() {
		return closedDone
	}
	ch := f.done.Load()
	if ch == nil {
		c := make(chan struct{})
		if !f.done.CompareAndSwap(nil, &c) {
			ch = f.done.Load()
		} else {
			ch = &c
		}
	}
	if f.Ready() { // Complete may have looked for the channel before it was stored
		return closedDone
	}
	return *ch // stored before Complete's store of futureDone: Complete closes it
}

// Cancel asks the producer to give up the work (what that means is the producer's to say:
// for a command, see Command.Queue). A done future is not changed by it.
func (f *Future[T]) Cancel() {
	if f.canceler != nil && f.state.Load() != futureDone {
		f.canceler.Cancel()
	}
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
	f := &Future[T]{canceler: cancelFunc(cancel)}
	go f.await(sub, cancel, obs.Observe(rxgo.WithContext(sub)))
	return f
}

// cancelFunc is a context.CancelFunc as a Canceler.
type cancelFunc context.CancelFunc

func (c cancelFunc) Cancel() { c() }

// await resolves f from the first item of ch, then drains ch until the subscription ends.
func (f *Future[T]) await(ctx context.Context, cancel context.CancelFunc, ch <-chan rxgo.Item) {
	defer cancel()
	var v T
	var err error
	select {
	case it, ok := <-ch:
		switch {
		case !ok && ctx.Err() != nil:
			err = context.Cause(ctx)
		case !ok:
			err = ErrEmpty
		case it.Error():
			err = it.E
		default:
			v, err = valueOf[T](it.V)
		}
	case <-ctx.Done():
		err = context.Cause(ctx)
	}
	f.Complete(v, err)
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
