package metrics

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reactivex/rxgo/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// feedWait bounds every wait of the feed tests, so that a broken feed fails, not hangs.
const feedWait = 5 * time.Second

// subscriptions returns how many subscriptions the registry's publishers offer to.
func subscriptions(r *Registry) int {
	l := r.feed.subs.Load()
	if l == nil {
		return 0
	}
	return len(l.completions) + len(l.health) + len(l.counts)
}

// awaitSubscriptions waits until n subscriptions are registered: RxGo starts a producer
// on a goroutine of its own after Observe returns.
func awaitSubscriptions(t testing.TB, r *Registry, n int) {
	t.Helper()
	for deadline := time.Now().Add(feedWait); subscriptions(r) != n; time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions, want %d", subscriptions(r), n)
		}
	}
}

// observe subscribes to obs with a context cancelled when the test ends.
func observe(t testing.TB, obs rxgo.Observable) <-chan rxgo.Item {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return obs.Observe(rxgo.WithContext(ctx))
}

// receive returns the values of the next n items of ch, failing on an error item, a
// closed channel or a wait past feedWait.
func receive[T any](t testing.TB, ch <-chan rxgo.Item, n int) []T {
	t.Helper()
	out := make([]T, 0, n)
	timeout := time.After(feedWait)
	for len(out) < n {
		select {
		case it, ok := <-ch:
			require.True(t, ok, "closed after %d of %d items", len(out), n)
			require.NoError(t, it.E)
			out = append(out, it.V.(T))
		case <-timeout:
			t.Fatalf("%d of %d items in time", len(out), n)
		}
	}
	return out
}

// drainFeed reads ch until it closes and returns how many items it held, failing on an
// error item or a wait past feedWait.
func drainFeed(t testing.TB, ch <-chan rxgo.Item) int {
	t.Helper()
	n := 0
	timeout := time.After(feedWait)
	for {
		select {
		case it, ok := <-ch:
			if !ok {
				return n
			}
			require.NoError(t, it.E)
			n++
		case <-timeout:
			t.Fatalf("not closed in time (%d items)", n)
		}
	}
}

func TestCompletionsDeliverEachCompletionWithKeyResultAndTime(t *testing.T) {
	e := newEnv(t)
	all := e.r.Completions()
	onlyB := e.r.Completions(ForKey("B"))
	chAll, chB := observe(t, all), observe(t, onlyB)
	awaitSubscriptions(t, e.r, 2)

	ok := result(Success).withExecuted(false).withExecutionLatency(time.Millisecond)
	failed := result(Failure, FallbackSuccess).WithTotalLatency(2 * time.Millisecond)
	e.r.Command("A").MarkComplete(ok)
	e.clk.Advance(time.Millisecond)
	e.r.Command("B").MarkComplete(failed)

	assert.Equal(t, []Completion{
		{Key: "A", Result: ok, Time: epoch},
		{Key: "B", Result: failed, Time: epoch.Add(time.Millisecond)},
	}, receive[Completion](t, chAll, 2))
	assert.Equal(t, []Completion{{Key: "B", Result: failed, Time: epoch.Add(time.Millisecond)}},
		receive[Completion](t, chB, 1))
	assert.Zero(t, all.Missed())
	assert.Zero(t, onlyB.Missed())
}

func TestForKeyFollowsTheKeyThroughEviction(t *testing.T) {
	e := newEnv(t, WithIdleTimeout(10*time.Second))
	ch := observe(t, e.r.Completions(ForKey("k")))
	awaitSubscriptions(t, e.r, 1)
	old := e.r.Command("k")
	old.MarkComplete(result(Success))
	e.advance(20 * time.Second)
	require.Empty(t, e.r.Commands(), "evicted")

	fresh := e.r.Command("k")
	require.NotSame(t, old, fresh)
	fresh.MarkComplete(result(Failure))
	got := receive[Completion](t, ch, 2)
	assert.Equal(t, []ExecutionResult{result(Success), result(Failure)}, []ExecutionResult{got[0].Result, got[1].Result})
}

// TestSlowSubscriberMissesAreCountedAndMetricsStayExact is the feed's acceptance: 16
// goroutines complete flat out while the only subscriber sleeps 10 ms per item. The
// publishers finish (they never wait for it: at 10 ms an item they would take minutes),
// what the subscriber received plus what its Feed missed is every completion, and the
// metrics are exact.
func TestSlowSubscriberMissesAreCountedAndMetricsStayExact(t *testing.T) {
	n := 400_000
	if raceEnabled {
		n = 100_000 // the race detector makes each write about 20 times slower
	}
	e := newEnv(t)
	m := e.r.Command("K")
	feed := e.r.Completions()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := feed.Observe(rxgo.WithContext(ctx))
	awaitSubscriptions(t, e.r, 1)
	received := make(chan int)
	go func() {
		k := 0
		for range ch {
			k++
			time.Sleep(10 * time.Millisecond)
		}
		received <- k
	}()

	start := time.Now()
	publish(m, 16, n)
	elapsed := time.Since(start)
	cancel()
	got := <-received
	assert.Equal(t, int64(n), int64(got)+feed.Missed(), "received + missed = completions")
	assert.Positive(t, feed.Missed())
	assert.Zero(t, subscriptions(e.r), "unregistered when its context ended")

	e.advance(time.Second)
	counts, health := want(n)
	assert.Equal(t, health, m.HealthCounts())
	for _, ev := range AllEventTypes()[:CommandMaxActive] {
		assert.Equal(t, counts[ev], m.CumulativeCount(ev), "cumulative %v", ev)
	}
	t.Logf("%d completions in %v: %d received, %d missed", n, elapsed, got, feed.Missed())
}

// TestSubscriptionEndCountsWhatItsBufferHeld: a subscriber that stops reading and leaves
// gets its channel closed without an error item, the subscription is unregistered, and
// the items its buffer still held count as missed.
func TestSubscriptionEndCountsWhatItsBufferHeld(t *testing.T) {
	e := newEnv(t)
	m := e.r.Command("K")
	feed := e.r.Completions(WithFeedBuffer(4))
	ctx, cancel := context.WithCancel(context.Background())
	ch := feed.Observe(rxgo.WithContext(ctx))
	awaitSubscriptions(t, e.r, 1)
	for range 10 {
		m.MarkComplete(result(Success))
	}
	got := len(receive[Completion](t, ch, 2))
	cancel()
	got += drainFeed(t, ch)
	assert.Equal(t, int64(10), int64(got)+feed.Missed())
	assert.GreaterOrEqual(t, feed.Missed(), int64(10-4-1), "it held its buffer and one item")
	assert.Zero(t, subscriptions(e.r))
}

// TestMissesAreExactWhenASubscriptionEndsUnderLoad: publishers offer flat out while the
// subscription ends, and go on until they made 20,000 offers after its end, as publishers
// that loaded the subscription list before it was unregistered would: each offer is
// still either received or missed, once, and the buffer ends empty.
func TestMissesAreExactWhenASubscriptionEndsUnderLoad(t *testing.T) {
	e := newEnv(t)
	feed := e.r.Completions(WithFeedBuffer(8))
	ctx, cancel := context.WithCancel(context.Background())
	ch := feed.Observe(rxgo.WithContext(ctx))
	awaitSubscriptions(t, e.r, 1)
	sub := e.r.feed.subs.Load().completions[0]

	var offers, late atomic.Int64 // late: offers made after the producer ended
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for {
				ended := sub.ended.Load()
				sub.offer(Completion{Key: "K"}, uint32(w))
				offers.Add(1)
				if ended && late.Add(1) >= 20_000 {
					return
				}
			}
		})
	}
	got := len(receive[Completion](t, ch, 2))
	cancel()
	got += drainFeed(t, ch)
	wg.Wait()
	assert.Equal(t, offers.Load(), int64(got)+feed.Missed(), "received + missed = offers")
	assert.Zero(t, len(sub.buf), "every late item taken back")
	t.Logf("%d offers: %d received, %d missed, %d after the end", offers.Load(), got, feed.Missed(), late.Load())
}

// TestTheFullFlagIsNeverLeftOnAnEmptyBuffer plays, step by step, the interleaving a
// publisher and the producer can fall into: the publisher's send finds the buffer full,
// the producer takes the item (the flag is not set yet: nothing to clear), then the
// publisher sets the flag. Were the flag left set on the empty buffer, every later
// completion would be a miss; the publisher's second send puts its item in instead, and
// the producer clears the flag when it takes it.
func TestTheFullFlagIsNeverLeftOnAnEmptyBuffer(t *testing.T) {
	f := &Feed{misses: newCounters()}
	sub := &subscription[int]{buf: make(chan int, 1), misses: f.misses}
	take := func() int {
		t.Helper()
		select {
		case v := <-sub.buf:
			sub.took()
			return v
		case <-time.After(feedWait):
			t.Fatal("the buffer is empty")
			return 0
		}
	}

	require.True(t, sub.send(1))
	require.False(t, sub.send(2), "full")
	assert.Equal(t, 1, take(), "the producer takes the item before the publisher sets the flag")
	sub.sendFull(2, 0)
	assert.Zero(t, f.Missed(), "the second send found room")
	assert.True(t, sub.full.Load())
	assert.Equal(t, 2, take())
	assert.False(t, sub.full.Load(), "cleared with the item")

	sub.offer(3, 0)
	sub.offer(4, 0)
	assert.True(t, sub.full.Load(), "set by a send that found no room")
	assert.Equal(t, int64(1), f.Missed())
	assert.Equal(t, 3, take())
	assert.False(t, sub.full.Load())
}

func TestHealthAndCountSnapshotsAtTheirBoundaries(t *testing.T) {
	e := newEnv(t)
	health := observe(t, e.r.HealthSnapshots(ForKey("K")))
	counts := observe(t, e.r.CountSnapshots())
	awaitSubscriptions(t, e.r, 2)
	k, l := e.r.Command("K"), e.r.Command("L")
	k.MarkStart()
	k.MarkComplete(result(Success).withExecuted(false))
	k.MarkComplete(result(Failure, FallbackSuccess))
	l.MarkComplete(result(ShortCircuited, FallbackSuccess))

	e.advance(500 * time.Millisecond)
	assert.Equal(t, []HealthSnapshot{{Key: "K", Time: epoch.Add(500 * time.Millisecond), HealthCounts: HealthCounts{2, 1, 50}}},
		receive[HealthSnapshot](t, health, 1))
	e.advance(500 * time.Millisecond)
	assert.Equal(t, []HealthSnapshot{{Key: "K", Time: epoch.Add(time.Second), HealthCounts: k.HealthCounts()}},
		receive[HealthSnapshot](t, health, 1))

	byKey := map[string]CountSnapshot{}
	for _, c := range receive[CountSnapshot](t, counts, 2) {
		byKey[c.Key] = c
	}
	for key, m := range map[string]*CommandMetrics{"K": k, "L": l} {
		c := byKey[key]
		assert.Equal(t, epoch.Add(time.Second), c.Time, key)
		for _, ev := range AllEventTypes() {
			assert.Equal(t, m.RollingCount(ev), c.RollingCount(ev), "%s rolling %v", key, ev)
			assert.Equal(t, m.CumulativeCount(ev), c.CumulativeCount(ev), "%s cumulative %v", key, ev)
		}
		assert.Equal(t, m.RollingMaxConcurrency(), c.RollingMaxConcurrency(), key)
	}
	assert.Equal(t, int64(1), byKey["K"].RollingCount(Success))
	assert.Equal(t, int64(1), byKey["K"].RollingCount(CommandMaxActive))
	assert.Equal(t, int64(1), byKey["L"].CumulativeCount(ShortCircuited))
}

// TestEverySubscriptionHasItsOwnBuffer: one Feed subscribed twice, once through Filter
// and Map: each subscription gets every item from its start, and a subscriber that does
// not read makes the other miss nothing.
func TestEverySubscriptionHasItsOwnBuffer(t *testing.T) {
	e := newEnv(t)
	feed := e.r.Completions(WithFeedBuffer(4))
	failures := feed.
		Filter(func(v any) bool { return v.(Completion).Result.Contains(Failure) }).
		Map(func(_ context.Context, v any) (any, error) { return v.(Completion).Key, nil })
	reader := observe(t, failures)
	idleCtx, leave := context.WithCancel(context.Background())
	defer leave()
	idle := feed.Observe(rxgo.WithContext(idleCtx))
	awaitSubscriptions(t, e.r, 2)

	keys := []string{"A", "B", "C", "D"}
	var got []string
	for _, key := range keys { // the reader keeps up: at most 3 of its items are pending
		e.r.Command(key).MarkComplete(result(Failure))
		e.r.Command(key).MarkComplete(result(Success))
		got = append(got, receive[string](t, reader, 1)...)
	}
	assert.Equal(t, keys, got)
	first := receive[Completion](t, idle, 1)[0]
	assert.Equal(t, Completion{Key: "A", Result: result(Failure), Time: epoch}, first, "its own items, from the start")
	leave()
	idleGot := 1 + drainFeed(t, idle)
	assert.Equal(t, int64(2*len(keys)), int64(idleGot)+feed.Missed(), "every miss is the idle subscription's")
	assert.GreaterOrEqual(t, feed.Missed(), int64(2*len(keys)-4-1), "it held its buffer and one item")
}

// TestCloseEndsEverySubscription: Close completes every subscription, through operators
// too, even one whose context never ends, and waits for their goroutines; a subscription
// after Close completes at once.
func TestCloseEndsEverySubscription(t *testing.T) {
	e := newEnv(t)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	forever := rxgo.WithContext(context.Background())
	chans := []<-chan rxgo.Item{
		e.r.Completions().Observe(forever),
		e.r.Completions(ForKey("K")).Map(func(_ context.Context, v any) (any, error) { return v, nil }).Observe(forever),
		e.r.HealthSnapshots().Observe(forever),
		e.r.CountSnapshots(ForKey("K")).Observe(forever),
	}
	awaitSubscriptions(t, e.r, len(chans))
	e.r.Command("K").MarkComplete(result(Success))
	e.r.Close()
	assert.Zero(t, subscriptions(e.r))
	for i, ch := range chans {
		n := drainFeed(t, ch)
		assert.LessOrEqual(t, n, 1, "subscription %d", i)
	}
	assert.Zero(t, drainFeed(t, e.r.Completions().Observe(forever)), "after Close")
	e.r.Close()
}
