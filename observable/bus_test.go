package observable

import (
	"context"
	"sync"
	"testing"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBusDeliversToEverySubscriber(t *testing.T) {
	bus := NewBus[int](8)
	ctx := testCtx(t)
	a, b := bus.Subscribe(ctx), bus.Subscribe(ctx)
	require.Equal(t, 2, bus.Subscribers())

	for i := range 3 {
		bus.Publish(i)
	}
	for _, q := range []*Queue[int]{a, b} {
		assert.Equal(t, []int{0, 1, 2}, []int{recv(t, q), recv(t, q), recv(t, q)})
	}
	assert.Zero(t, bus.Dropped())
}

func TestBusPublishWithoutSubscribersIsNotADrop(t *testing.T) {
	bus := NewBus[int](1)
	bus.Publish(1)
	assert.Zero(t, bus.Dropped())
	assert.Zero(t, bus.Subscribers())
}

func TestBusCountsDropsWhenABufferIsFull(t *testing.T) {
	bus := NewBus[int](2)
	ctx := testCtx(t)
	slow, fast := bus.Subscribe(ctx), bus.Subscribe(ctx)
	var got []int
	for i := range 5 {
		bus.Publish(i) // never blocks although slow is never read here
		got = append(got, recv(t, fast))
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4}, got)
	assert.Equal(t, uint64(3), bus.Dropped(), "slow missed 2, 3 and 4")
	assert.Equal(t, []int{0, 1}, pollAll(slow))
}

func TestBusUnsubscribesWhenContextEnds(t *testing.T) {
	bus := NewBus[int](4)
	keep := bus.Subscribe(testCtx(t))
	ctx, cancel := context.WithCancel(context.Background())
	leaving := bus.Subscribe(ctx)
	bus.Publish(1)
	cancel()

	assert.Equal(t, []int{1}, awaitDone(t, leaving),
		"queued values can still be polled, then the queue is done: it closes when its context ends")
	assert.Equal(t, 1, bus.Subscribers())

	bus.Publish(2)
	assert.Empty(t, pollAll(leaving), "nothing reaches a removed subscriber")
	assert.Equal(t, []int{1, 2}, []int{recv(t, keep), recv(t, keep)})
	assert.Zero(t, bus.Dropped())
}

func TestBusSubscribeWithEndedContextClosesAtOnce(t *testing.T) {
	bus := NewBus[int](1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := bus.Subscribe(ctx)
	assert.Empty(t, awaitDone(t, q))
	eventually(t, func() bool { return bus.Subscribers() == 0 }, "subscriber not removed")
}

// TestBusChurnUnderConcurrentPublish races publishers against subscribers that come and
// go; every leaving queue must end up closed, and the steady subscriber must see every
// value, each publisher's in order.
func TestBusChurnUnderConcurrentPublish(t *testing.T) {
	const publishers, perPublisher = 4, 2000
	bus := NewBus[int](publishers * perPublisher)
	steady := bus.Subscribe(testCtx(t))

	stop := make(chan struct{})
	var churn sync.WaitGroup
	for range 2 {
		churn.Add(1)
		go func() {
			defer churn.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithCancel(context.Background())
				q := bus.Subscribe(ctx)
				cancel()
				for pollAll(q); !q.Done(); pollAll(q) { // until the close, which must come
					<-q.Ready()
				}
			}
		}()
	}

	var pubs sync.WaitGroup
	for p := range publishers {
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			for i := range perPublisher {
				bus.Publish(p*perPublisher + i)
			}
		}()
	}
	pubs.Wait()
	close(stop)
	churn.Wait()

	got := pollAll(steady)
	assert.Len(t, got, publishers*perPublisher)
	last := make([]int, publishers)
	for p := range last {
		last[p] = -1
	}
	for _, v := range got {
		p, i := v/perPublisher, v%perPublisher
		require.Greater(t, i, last[p], "publisher %d out of order", p)
		last[p] = i
	}
	assert.Zero(t, bus.Dropped())
	eventually(t, func() bool { return bus.Subscribers() == 1 }, "churned subscribers not removed")
}

func TestBusPublishDoesNotAllocate(t *testing.T) {
	bus := NewBus[int](1)
	ctx := testCtx(t)
	bus.Subscribe(ctx)
	bus.Subscribe(ctx)
	allocs := testing.AllocsPerRun(1000, func() { bus.Publish(12345) })
	assert.Zero(t, allocs)
	assert.Positive(t, bus.Dropped())
}

func TestBusObserveComposesWithRxgo(t *testing.T) {
	bus := NewBus[int](8)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	doubled := bus.Observe().Map(func(_ context.Context, v any) (any, error) {
		return v.(int) * 2, nil
	}).Observe(rxgo.WithContext(ctx))

	eventually(t, func() bool { return bus.Subscribers() == 1 }, "Observe did not subscribe")
	bus.Publish(1)
	bus.Publish(2)
	assert.Equal(t, 2, next(t, doubled).V)
	assert.Equal(t, 4, next(t, doubled).V)

	cancel()
	drain(t, doubled)
	eventually(t, func() bool { return bus.Subscribers() == 0 }, "unsubscribe did not reach the bus")
}
