package rx

import "github.com/reactivex/rxgo/v2"

// source is an observable that subscribes its own way (Observe, say without a producer
// goroutine) and has an rxgo observable of the same items (Rx) for everything else.
type source interface {
	// Observe subscribes, as rxgo.Observable's Observe.
	Observe(opts ...rxgo.Option) <-chan rxgo.Item
	// Rx returns an rxgo observable of the same items: the operators (Map, DoOnNext, ...)
	// are rxgo's, applied to it.
	Rx() rxgo.Observable
}

//go:generate go run ../forward -pkg github.com/reactivex/rxgo/v2 -iface Observable -skip Observe -recv "v view[S]" -body "v.s.Rx().%m(%a)" -out view_operators.go

// View returns s as an rxgo.Observable: a subscription is s's own, every operator is
// rxgo's applied to s.Rx(). S has Observe(opts ...rxgo.Option) <-chan rxgo.Item and
// Rx() rxgo.Observable. A pointer S makes the view cost no allocation.
func View[S source](s S) rxgo.Observable { return view[S]{s} }

// view is View's rxgo.Observable: as big as S, so a pointer S is stored in the interface
// as it is.
type view[S source] struct{ s S }

// Observe subscribes through the source.
func (v view[S]) Observe(opts ...rxgo.Option) <-chan rxgo.Item { return v.s.Observe(opts...) }
