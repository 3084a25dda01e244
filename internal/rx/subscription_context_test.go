package rx

import (
	"context"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
)

func TestSubscriptionContextIsTheOneRxgoHandsAProducer(t *testing.T) {
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "request")
	other := context.WithValue(context.Background(), key{}, "other")
	for name, opts := range map[string][]rxgo.Option{
		"none":                  nil,
		"context":               {rxgo.WithContext(ctx)},
		"the last context wins": {rxgo.WithContext(other), rxgo.WithContext(ctx)},
		"with others":           {rxgo.WithBufferedChannel(4), rxgo.WithContext(ctx), rxgo.WithPublishStrategy()},
	} {
		t.Run(name, func(t *testing.T) {
			handed := make(chan context.Context, 1)
			for range rxgo.Defer([]rxgo.Producer{func(ctx context.Context, _ chan<- rxgo.Item) { handed <- ctx }}).Observe(opts...) {
			}
			assert.True(t, subscriptionContext(opts) == <-handed)
		})
	}
}
