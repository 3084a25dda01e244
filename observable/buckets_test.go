package observable

import (
	"context"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
)

// sum is a test accumulator: the bucket start and the items folded into it.
type sum struct {
	Start time.Time
	Items []int
}

func newSum(start time.Time) sum { return sum{Start: start} }
func addSum(acc sum, v int) sum  { acc.Items = append(acc.Items, v); return acc }
func bucket(t testing.TB, ch <-chan rxgo.Item) sum {
	t.Helper()
	it := next(t, ch)
	require.NoError(t, it.E)
	return it.V.(sum)
}

// startBuckets subscribes to Buckets over a bus on a fake clock and waits until the
// producer has subscribed to the bus and armed its timer.
func startBuckets(t *testing.T, start time.Time, width time.Duration) (*Bus[int], *clock.Fake, <-chan rxgo.Item, context.CancelFunc) {
	bus := NewBus[int](16)
	clk := clock.NewFake(start)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out := Buckets(bus.Subscribe, width, clk, newSum, addSum).Observe(rxgo.WithContext(ctx))
	clk.BlockUntil(1)
	return bus, clk, out, cancel
}

func TestBucketsEmitsEveryBucketIncludingEmptyOnes(t *testing.T) {
	bus, clk, out, _ := startBuckets(t, epoch, time.Second)

	bus.Publish(1)
	bus.Publish(2)
	clk.Advance(time.Second)
	assert.Equal(t, sum{Start: epoch, Items: []int{1, 2}}, bucket(t, out))

	clk.BlockUntil(1)
	clk.Advance(3 * time.Second)
	for k := 1; k <= 3; k++ {
		assert.Equal(t, sum{Start: epoch.Add(time.Duration(k) * time.Second)}, bucket(t, out),
			"bucket %d is empty but still emitted, in order", k)
	}

	clk.BlockUntil(1)
	bus.Publish(5)
	clk.Advance(500 * time.Millisecond)
	clk.BlockUntil(1)
	bus.Publish(6)
	clk.Advance(500 * time.Millisecond)
	assert.Equal(t, sum{Start: epoch.Add(4 * time.Second), Items: []int{5, 6}}, bucket(t, out))
}

func TestBucketsAlignToTheGridNotToTheSubscription(t *testing.T) {
	width := 100 * time.Millisecond
	_, clk, out, _ := startBuckets(t, epoch.Add(250*time.Millisecond), width)

	clk.Advance(50 * time.Millisecond) // reaches the 300ms boundary: first (partial) bucket ends
	assert.Equal(t, epoch.Add(200*time.Millisecond), bucket(t, out).Start)
	for k := 3; k < 13; k++ {
		clk.BlockUntil(1)
		clk.Advance(width)
		assert.Equal(t, epoch.Add(time.Duration(k)*width), bucket(t, out).Start, "no drift")
	}
}

func TestBucketsStopWhenSubscriberLeaves(t *testing.T) {
	bus, clk, out, cancel := startBuckets(t, epoch, time.Second)
	cancel()
	assert.Empty(t, drain(t, out))
	eventually(t, func() bool { return bus.Subscribers() == 0 && clk.Pending() == 0 },
		"bus subscription or timer left behind")
}

func TestBucketsCompleteWhenSourceCloses(t *testing.T) {
	src := NewQueue[int](4)
	clk := clock.NewFake(epoch)
	out := Buckets(func(context.Context) *Queue[int] { return src }, time.Second, clk, newSum, addSum).
		Observe(rxgo.WithContext(testCtx(t)))
	clk.BlockUntil(1) // subscribed, timer armed: the producer parks on src
	src.Offer(1)
	src.Close()
	assert.Empty(t, drain(t, out), "the unfinished bucket is not emitted")
}

// TestBucketsWakeOnAnItemWhileIdle: a parked producer folds an item as soon as it is
// published (not only at the next boundary), polls while items flow, and parks again
// once they stop, to be woken by the next one.
func TestBucketsWakeOnAnItemWhileIdle(t *testing.T) {
	bus := NewBus[int](16)
	clk := clock.NewFake(epoch)
	var q *Queue[int]
	subscribed := make(chan struct{})
	src := func(ctx context.Context) *Queue[int] {
		q = bus.Subscribe(ctx)
		close(subscribed)
		return q
	}
	folded := make(chan int, 16)
	out := Buckets(src, time.Second, clk, newSum, func(acc sum, v int) sum {
		folded <- v
		return addSum(acc, v)
	}).Observe(rxgo.WithContext(testCtx(t)))
	<-subscribed
	clk.BlockUntil(1)

	bus.Publish(1)
	assert.Equal(t, 1, await(t, folded), "folded while the clock stands still")
	bus.Publish(2)
	assert.Equal(t, 2, await(t, folded), "folded by polling")
	eventually(t, q.parked.Load, "the producer never parked again")
	bus.Publish(3)
	assert.Equal(t, 3, await(t, folded), "woken from the park")

	clk.Advance(time.Second)
	assert.Equal(t, sum{Start: epoch, Items: []int{1, 2, 3}}, bucket(t, out))
}

func TestBucketsRejectsNonPositiveWidth(t *testing.T) {
	assert.Panics(t, func() { Buckets(NewBus[int](1).Subscribe, 0, clock.NewFake(epoch), newSum, addSum) })
}

func TestBucketsOnTheSystemClock(t *testing.T) {
	bus := NewBus[int](16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := Buckets(bus.Subscribe, 10*time.Millisecond, clock.System(), newSum, addSum).
		Observe(rxgo.WithContext(ctx))
	first, second := bucket(t, out), bucket(t, out)
	assert.Equal(t, 10*time.Millisecond, second.Start.Sub(first.Start))
	assert.Zero(t, first.Start.UnixNano()%int64(10*time.Millisecond), "aligned to the grid")
	cancel()
	drain(t, out)
}

func TestBucketStart(t *testing.T) {
	for _, tc := range []struct {
		at, want time.Time
	}{
		{epoch, epoch},
		{epoch.Add(999 * time.Millisecond), epoch},
		{epoch.Add(time.Second), epoch.Add(time.Second)},
		{time.Unix(-1, 500), time.Unix(-1, 0)},
		{time.Unix(-1, -500), time.Unix(-2, 0)},
	} {
		assert.Equal(t, tc.want, bucketStart(tc.at, time.Second), "at %v", tc.at)
	}
}

// TestBucketsEndsCleanlyWhenClosedAtABoundary cancels the subscriber while the producer
// is emitting a due bucket nobody reads, so arm fails: the producer must end without
// stopping a nil timer.
func TestBucketsEndsCleanlyWhenClosedAtABoundary(t *testing.T) {
	for range 50 {
		clk := clock.NewFake(time.Unix(0, 0))
		bus := NewBus[int](8)
		ctx, cancel := context.WithCancel(context.Background())
		out := Buckets(bus.Subscribe, time.Second, clk,
			func(time.Time) int { return 0 }, func(a, v int) int { return a + v }).Observe(rxgo.WithContext(ctx))
		clk.BlockUntil(1)
		clk.Advance(3 * time.Second)
		cancel()
		for range out {
		}
	}
}
