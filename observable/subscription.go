package observable

import (
	"context"
	"reflect"
	"sync"

	"github.com/reactivex/rxgo/v2"
)

// SubscriptionContext returns the context that a subscription's options give
// (rxgo.WithContext; context.Background without one), as rxgo.Defer hands it to its
// producer, so that a Source can start the subscription's work without rxgo.Defer: RxGo
// hands a subscriber's context only to a producer goroutine of its own. It reports false
// when it cannot read the options (a nil option, or an rxgo whose options are not laid out
// as rxOption says); the Source then subscribes through Rx.
func SubscriptionContext(opts []rxgo.Option) (context.Context, bool) {
	if !rxOptionKnown {
		return nil, false
	}
	set := rxOptions.Get().(*rxOption)
	ctx, ok := set.subscription(opts)
	*set = rxOption{}
	rxOptions.Put(set)
	return ctx, ok
}

// rxOptions keeps the option sets SubscriptionContext applies options to: an option
// applies to a set it is handed, so a set on the stack would escape to the heap.
var rxOptions = sync.Pool{New: func() any { return new(rxOption) }}

// subscription applies opts to the zero set o and returns what SubscriptionContext does.
func (o *rxOption) subscription(opts []rxgo.Option) (context.Context, bool) {
	for _, opt := range opts {
		if opt == nil || reflect.TypeOf(opt) != rxOptionType {
			return nil, false
		}
		(*rxOption)(reflect.ValueOf(opt).UnsafePointer()).f(o)
	}
	if o.ctx == nil {
		return context.Background(), true
	}
	return o.ctx, true
}

// rxOption mirrors rxgo v2.5.0's funcOption, the only rxgo.Option there is: an option is
// a *funcOption whose f sets fields of the subscription's own funcOption.
// rxOptionKnown says whether the mirror is exact, field for field.
type rxOption struct {
	f                    func(*rxOption) // applies the option
	isBuffer             bool
	buffer               int
	ctx                  context.Context
	observation          rxgo.ObservationStrategy
	pool                 int
	backPressureStrategy rxgo.BackpressureStrategy
	onErrorStrategy      rxgo.OnErrorStrategy
	propagate            bool
	connectable          bool
	connectOperation     bool
	serialized           func(any) int
}

var (
	rxOptionType  = reflect.TypeOf(rxgo.WithContext(context.Background()))
	rxOptionKnown = mirrors(rxOptionType, reflect.TypeFor[rxOption]()) && appliesAsMirrored()
)

// mirrors reports whether mirror has rx's layout: a pointer rx to a struct with the same
// size and fields (names, offsets, types), the first a func taking rx.
func mirrors(rx, mirror reflect.Type) bool {
	if rx.Kind() != reflect.Pointer || rx.Elem().Kind() != reflect.Struct {
		return false
	}
	s := rx.Elem()
	if s.Size() != mirror.Size() || s.NumField() != mirror.NumField() {
		return false
	}
	for i := range s.NumField() {
		got, want := s.Field(i), mirror.Field(i)
		if got.Name != want.Name || got.Offset != want.Offset {
			return false
		}
		if i == 0 {
			if got.Type.Kind() != reflect.Func || got.Type.NumIn() != 1 || got.Type.In(0) != rx || got.Type.NumOut() != 0 {
				return false
			}
			continue
		}
		if got.Type != want.Type {
			return false
		}
	}
	return true
}

// appliesAsMirrored checks the mirror on options whose effect is known.
func appliesAsMirrored() bool {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, true)
	var set rxOption
	for _, opt := range []rxgo.Option{rxgo.WithContext(ctx), rxgo.WithBufferedChannel(3), rxgo.WithPublishStrategy()} {
		(*rxOption)(reflect.ValueOf(opt).UnsafePointer()).f(&set)
	}
	return set.ctx == ctx && set.isBuffer && set.buffer == 3 && set.connectable
}
