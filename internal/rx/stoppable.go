package rx

import (
	"context"
	"slices"

	"github.com/reactivex/rxgo/v2"
)

//go:generate go run ../forward -pkg github.com/reactivex/rxgo/v2 -iface Observable -skip Observe,Connect,Send,Take,ToSlice,DoOnCompleted,DoOnError,DoOnNext,ForEach,Run -recv "o stoppable" -body "scoped(o.stop, o.rx.%m(%a))" -out stoppable_operators.go

// Stoppable returns rx as an rxgo.Observable whose operator chains end their subscription
// of rx when they stop reading: RxGo's operators that stop early (Take, First, TakeUntil,
// ElementAt, Find, Contains, All, ...) leave their upstream blocked on its next send until
// the subscription's context ends, which may be never. A subscription of an operator of
// the result (of its operators' operators, of its Singles) runs the chain under a context
// of its own, derived from the subscription's, and reads it through a forwarding
// goroutine: once the chain's output ended, that context ends (every operator and
// producer above ends with it), then stop is called (unless nil: it may wait for the work
// behind rx to end), then the subscriber's channel closes. A direct subscription of the
// result is rx's own. Take completes right after its n-th item (rxgo's waits for one
// more); the terminal subscriptions (ForEach, DoOnNext, DoOnError, DoOnCompleted, Run,
// Send, ToSlice) of an operator's result read through the forwarder too; Connect, Error
// and Errors are rx's.
//
// The forwarder learns the subscription's context as RxGo hands it to a producer
// (subscriptionContext): no option is read here.
func Stoppable(rx rxgo.Observable, stop func()) rxgo.Observable {
	return stoppable{rx: rx, stop: stop, root: true}
}

// stoppable is Stoppable's observable: rx, or (root false) an operator chain built on it.
type stoppable struct {
	rx   rxgo.Observable
	stop func()
	root bool
}

// Observe subscribes: rx's own channel at the root, else the chain's through a forwarder.
func (o stoppable) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	if o.root {
		return o.rx.Observe(opts...)
	}
	return forward(o.rx, o.stop, opts)
}

// forward subscribes to it with opts, under a context of its own derived from the
// subscription's, and returns a channel of its items. Once its output ended (closed, or the
// subscription's context ended) it ends that context, so that every operator and producer
// above it ends too, calls stop (if not nil) and closes the channel.
func forward(it rxgo.Iterable, stop func(), opts []rxgo.Option) <-chan rxgo.Item {
	ctx := subscriptionContext(opts)
	sub, cancel := context.WithCancel(ctx)
	in := it.Observe(append(slices.Clip(opts), rxgo.WithContext(sub))...)
	out := make(chan rxgo.Item)
	go func() {
		defer close(out)
		defer func() {
			cancel()
			if stop != nil {
				stop()
			}
		}()
		for item := range in {
			select {
			case out <- item:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// scoped returns the result r of an operator applied to an observable stop belongs to: an
// observable or a single whose subscriptions call stop when they end; any other r as it is.
func scoped[R any](stop func(), r R) R {
	var w any
	switch x := any(r).(type) {
	case rxgo.Observable:
		w = stoppable{rx: x, stop: stop}
	case rxgo.Single:
		w = stoppableSingle{x, stop}
	case rxgo.OptionalSingle:
		w = stoppableOptional{x, stop}
	default:
		return r
	}
	return w.(R)
}

// Take emits the first n items and completes at once, ending its subscription of the
// source: rxgo's Take completes only when the source gives an item more, or ends, which a
// quiet source may never do.
func (o stoppable) Take(n uint, opts ...rxgo.Option) rxgo.Observable {
	src := o.rx
	return stoppable{stop: o.stop, rx: rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		if n == 0 {
			return
		}
		sub, cancel := context.WithCancel(ctx)
		defer cancel()
		taken := uint(0)
		for item := range src.Observe(rxgo.WithContext(sub)) {
			if !item.SendContext(ctx, next) || item.Error() {
				return
			}
			if taken++; taken == n {
				return
			}
		}
	}}, opts...)}
}

// Connect is rx's (Connect works on a connectable observable, which rx is not).
func (o stoppable) Connect(ctx context.Context) (context.Context, rxgo.Disposable) {
	return o.rx.Connect(ctx)
}

// Send sends the items to output through Observe, on a goroutine of its own, until the
// first error (as rxgo's, which leaves output open).
func (o stoppable) Send(output chan<- rxgo.Item, opts ...rxgo.Option) {
	ctx := subscriptionContext(opts)
	ch := o.Observe(opts...)
	go func() {
		for item := range ch {
			if !item.SendContext(ctx, output) || item.Error() {
				break
			}
		}
		for range ch {
		}
	}()
}

// ToSlice reads every item through Observe.
func (o stoppable) ToSlice(initialCapacity int, opts ...rxgo.Option) ([]any, error) {
	s := make([]any, 0, initialCapacity)
	for item := range o.Observe(opts...) {
		if item.Error() {
			return s, item.E
		}
		s = append(s, item.V)
	}
	return s, nil
}

// ForEach reads through Observe: next for each value, errFunc for each error, completed
// at the end (as rxgo's).
func (o stoppable) ForEach(next rxgo.NextFunc, errFunc rxgo.ErrFunc, completed rxgo.CompletedFunc, opts ...rxgo.Option) rxgo.Disposed {
	return consume(o.Observe(opts...), func(item rxgo.Item) bool {
		if item.Error() {
			errFunc(item.E)
		} else {
			next(item.V)
		}
		return true
	}, completed)
}

// DoOnNext calls next for each value until the first error (as rxgo's).
func (o stoppable) DoOnNext(next rxgo.NextFunc, opts ...rxgo.Option) rxgo.Disposed {
	return consume(o.Observe(opts...), func(item rxgo.Item) bool {
		if item.Error() {
			return false
		}
		next(item.V)
		return true
	}, nil)
}

// DoOnError calls errFunc with the first error (as rxgo's).
func (o stoppable) DoOnError(errFunc rxgo.ErrFunc, opts ...rxgo.Option) rxgo.Disposed {
	return consume(o.Observe(opts...), func(item rxgo.Item) bool {
		if item.Error() {
			errFunc(item.E)
			return false
		}
		return true
	}, nil)
}

// DoOnCompleted calls completed once the observable ended (as rxgo's, also after an error).
func (o stoppable) DoOnCompleted(completed rxgo.CompletedFunc, opts ...rxgo.Option) rxgo.Disposed {
	return consume(o.Observe(opts...), func(item rxgo.Item) bool { return !item.Error() }, completed)
}

// Run reads every item.
func (o stoppable) Run(opts ...rxgo.Option) rxgo.Disposed {
	return consume(o.Observe(opts...), func(rxgo.Item) bool { return true }, nil)
}

// consume reads ch on a goroutine of its own, handing each item to f until f returns false
// or ch closes, then calls end (if not nil) and closes the Disposed it returns. It reads
// ch to its end either way, so that the subscription's forwarder does not wait on it.
func consume(ch <-chan rxgo.Item, f func(rxgo.Item) bool, end func()) rxgo.Disposed {
	done := make(chan struct{})
	go func() {
		defer close(done)
		more := true
		for item := range ch {
			if more {
				more = f(item)
			}
		}
		if end != nil {
			end()
		}
	}()
	return done
}

// stoppableSingle is a Single of an operator applied to a Stoppable.
type stoppableSingle struct {
	s    rxgo.Single
	stop func()
}

func (s stoppableSingle) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	return forward(s.s, s.stop, opts)
}

func (s stoppableSingle) Filter(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.OptionalSingle {
	return stoppableOptional{s.s.Filter(apply, opts...), s.stop}
}

func (s stoppableSingle) Get(opts ...rxgo.Option) (rxgo.Item, error) {
	return get(s.Observe(opts...), opts)
}

func (s stoppableSingle) Map(apply rxgo.Func, opts ...rxgo.Option) rxgo.Single {
	return stoppableSingle{s.s.Map(apply, opts...), s.stop}
}

func (s stoppableSingle) Run(opts ...rxgo.Option) rxgo.Disposed {
	return consume(s.Observe(opts...), func(rxgo.Item) bool { return true }, nil)
}

// stoppableOptional is an OptionalSingle of an operator applied to a Stoppable.
type stoppableOptional struct {
	s    rxgo.OptionalSingle
	stop func()
}

func (s stoppableOptional) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	return forward(s.s, s.stop, opts)
}

func (s stoppableOptional) Get(opts ...rxgo.Option) (rxgo.Item, error) {
	return get(s.Observe(opts...), opts)
}

func (s stoppableOptional) Map(apply rxgo.Func, opts ...rxgo.Option) rxgo.OptionalSingle {
	return stoppableOptional{s.s.Map(apply, opts...), s.stop}
}

func (s stoppableOptional) Run(opts ...rxgo.Option) rxgo.Disposed {
	return consume(s.Observe(opts...), func(rxgo.Item) bool { return true }, nil)
}

// get is a single's Get: its item (rxgo.OptionalSingleEmpty when it has none), or the
// subscription context's error if it ends first.
func get(ch <-chan rxgo.Item, opts []rxgo.Option) (rxgo.Item, error) {
	ctx := subscriptionContext(opts)
	select {
	case item, ok := <-ch:
		if !ok {
			return rxgo.OptionalSingleEmpty, nil
		}
		return item, nil // a single's forwarder ends once it sees the close after the item
	case <-ctx.Done():
		return rxgo.Item{}, ctx.Err()
	}
}

// subscriptionContext returns the context opts give a subscription (rxgo.WithContext;
// context.Background without one) as rxgo.Defer hands it to its producer: RxGo's options
// are RxGo's to read. Without options it costs nothing, with them a producer goroutine.
func subscriptionContext(opts []rxgo.Option) context.Context {
	if len(opts) == 0 {
		return context.Background()
	}
	got := make(chan context.Context, 1)
	for range rxgo.Defer([]rxgo.Producer{func(ctx context.Context, _ chan<- rxgo.Item) { got <- ctx }}).Observe(opts...) {
	}
	return <-got
}
