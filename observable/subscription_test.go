package observable

import (
	"context"
	"reflect"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rxgo in go.mod is the one rxOption mirrors: were it not, every Source would
// subscribe through rxgo.Defer, correct but slower, and this test says so.
func TestRxOptionMirrorsTheRxgoInUse(t *testing.T) {
	require.True(t, rxOptionKnown, "rxOption no longer mirrors %v", rxOptionType.Elem())
}

func TestSubscriptionContextReadsWhatRxgoDeferHandsItsProducer(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "request")
	other := context.WithValue(context.Background(), key{}, "other")
	for _, tc := range []struct {
		name string
		opts []rxgo.Option
	}{
		{"none", nil},
		{"context", []rxgo.Option{rxgo.WithContext(ctx)}},
		{"the last context wins", []rxgo.Option{rxgo.WithContext(other), rxgo.WithContext(ctx)}},
		{"with others", []rxgo.Option{rxgo.WithBufferedChannel(4), rxgo.WithContext(ctx), rxgo.WithCPUPool(),
			rxgo.WithPublishStrategy(), rxgo.WithErrorStrategy(rxgo.ContinueOnError), rxgo.Serialize(func(any) int { return 0 })}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handed := make(chan context.Context, 1)
			for range rxgo.Defer([]rxgo.Producer{func(ctx context.Context, _ chan<- rxgo.Item) { handed <- ctx }}).
				Observe(tc.opts...) {
			}
			got, ok := SubscriptionContext(tc.opts)
			require.True(t, ok)
			assert.True(t, got == <-handed, "the producer's context")
		})
	}
}

func TestSubscriptionContextGivesUpOnANilOption(t *testing.T) {
	_, ok := SubscriptionContext([]rxgo.Option{rxgo.WithContext(context.Background()), nil})
	assert.False(t, ok)
}

// The pooled option sets are cleared: a subscription without a context after one with a
// context gets context.Background, not the earlier subscription's context.
func TestSubscriptionContextForgetsTheLastSubscription(t *testing.T) {
	ctx := testCtx(t)
	for range 100 {
		got, ok := SubscriptionContext([]rxgo.Option{rxgo.WithContext(ctx)})
		require.True(t, ok)
		require.True(t, got == ctx)
		got, ok = SubscriptionContext(nil)
		require.True(t, ok)
		require.True(t, got == context.Background())
	}
}

// mirrors refuses a mirror that differs from the rxgo type in any field's name, offset or
// type, or in size.
func TestMirrorsComparesEveryField(t *testing.T) {
	assert.True(t, mirrors(rxOptionType, reflect.TypeFor[rxOption]()))
	type renamed struct {
		f                    func(*rxOption)
		isBuffered           bool
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
	type retyped struct {
		f                    func(*rxOption)
		isBuffer             bool
		buffer               int64
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
	type shorter struct {
		f        func(*rxOption)
		isBuffer bool
		buffer   int
		ctx      context.Context
	}
	for _, mirror := range []reflect.Type{reflect.TypeFor[renamed](), reflect.TypeFor[retyped](), reflect.TypeFor[shorter]()} {
		assert.False(t, mirrors(rxOptionType, mirror), mirror.Name())
	}
	assert.False(t, mirrors(reflect.TypeFor[rxOption](), reflect.TypeFor[rxOption]()), "not a pointer")
}
