package observable

import (
	"context"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
)

// Buckets returns a cold observable that cuts src into clock-aligned buckets
// [k*width, (k+1)*width) of clk time (k counted from the Unix epoch) and, at every
// boundary, emits the finished bucket's accumulator, empty buckets included, in order.
//
// Each subscription subscribes to src with the subscriber's context, then starts the
// bucket that contains clk.Now() with newAcc(bucketStart) and folds every item into it
// with add, in plain Go on the producer goroutine (no rxgo item per input). While items
// flow the producer polls the source's queue once per millisecond; after 100 ms without
// any it parks on the queue until the next one. The timer is re-armed for the next
// boundary from the bucket grid, never from the firing time, so buckets do not drift;
// when the producer wakes late (a busy machine, or a fake clock advanced by several
// widths at once) it emits every bucket it passed, in order. Items already queued in src
// when a boundary fires are folded into the ending bucket first, so an item sent before
// the boundary is never counted after it.
//
// The first bucket is partial (it starts before the subscription). When src's queue is
// closed and drained the observable completes without emitting the unfinished bucket. A
// slow consumer of the emitted buckets delays the reading of src. Buckets panics if
// width is not positive.
func Buckets[T, A any](src Source[T], width time.Duration, clk clock.Clock,
	newAcc func(start time.Time) A, add func(A, T) A) rxgo.Observable {
	if width <= 0 {
		panic("observable: Buckets width must be positive")
	}
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		b := &bucketer[T, A]{width: width, clk: clk, newAcc: newAcc, add: add, in: src(ctx)}
		b.start = bucketStart(clk.Now(), width)
		b.acc = newAcc(b.start)
		b.run(ctx, next)
	}})
}

// bucketer is the state of one Buckets subscription, owned by its producer goroutine.
type bucketer[T, A any] struct {
	width  time.Duration
	clk    clock.Clock
	newAcc func(start time.Time) A
	add    func(A, T) A
	in     *Queue[T]
	start  time.Time // of the current bucket
	acc    A         // of the current bucket
}

func (b *bucketer[T, A]) run(ctx context.Context, next chan<- rxgo.Item) {
	timer, ok := b.arm(ctx, next)
	if !ok {
		return
	}
	defer func() {
		if timer != nil { // nil once arm failed: that timer had fired already
			timer.Stop()
		}
	}()
	var poll *time.Ticker // non-nil while polling
	defer func() {
		if poll != nil {
			poll.Stop()
		}
	}()
	quiet := 0 // polls in a row that found nothing
	for {
		if poll == nil {
			// Idle: park on the source; the first item wakes us and starts polling.
			select {
			case <-b.in.Ready():
				n, ok := b.drain()
				if !ok {
					return
				}
				if n > 0 {
					poll, quiet = time.NewTicker(pollInterval), 0
				}
			case <-timer.C():
				if timer, ok = b.arm(ctx, next); !ok {
					return
				}
			case <-ctx.Done():
				return
			}
			continue
		}
		select {
		case <-poll.C:
		case <-b.in.Nudge():
		case <-timer.C():
			if timer, ok = b.arm(ctx, next); !ok {
				return
			}
			continue
		case <-ctx.Done():
			return
		}
		n, ok := b.drain()
		if !ok {
			return
		}
		if quiet = quiet + 1; n > 0 {
			quiet = 0
		}
		if quiet >= idlePolls {
			poll.Stop()
			poll = nil
		}
	}
}

// pollInterval and idlePolls shape how the producer reads a busy source: it drains the
// queued items once per pollInterval, or sooner when a burst passes half the queue
// (Queue.Nudge), instead of parking (Queue.Ready), so a publisher's
// offer is a plain lock-free enqueue and never pays for waking a parked goroutine (that
// wake-up is most of the cost of a hand-off). After idlePolls empty polls it parks again,
// so an idle source costs nothing.
const (
	pollInterval = time.Millisecond
	idlePolls    = 100
)

// arm folds the queued items into the current bucket, emits every bucket that has ended,
// and arms a timer for the end of the current one. It reads the clock again after arming:
// a fake clock advanced meanwhile by another goroutine would otherwise leave the timer
// armed from a stale time, past the boundary it is meant for.
func (b *bucketer[T, A]) arm(ctx context.Context, next chan<- rxgo.Item) (clock.Timer, bool) {
	for {
		if !b.foldQueued() {
			return nil, false
		}
		now := b.clk.Now()
		for end := b.start.Add(b.width); !now.Before(end); end = b.start.Add(b.width) {
			if !rxgo.Of(b.acc).SendContext(ctx, next) {
				return nil, false
			}
			b.start = end
			b.acc = b.newAcc(end)
		}
		end := b.start.Add(b.width)
		timer := b.clk.NewTimer(end.Sub(now))
		if b.clk.Now().Before(end) {
			return timer, true
		}
		timer.Stop()
	}
}

// foldQueued folds the items already queued in the source and reports false if the
// source turned out to be closed.
func (b *bucketer[T, A]) foldQueued() bool {
	_, ok := b.drain()
	return ok
}

// drain folds the items already queued in the source (at most one queue's worth, so a
// flood of publishers cannot keep the producer from its timer), returning how many it
// folded and false if the source is closed and empty.
func (b *bucketer[T, A]) drain() (int, bool) {
	for n := range b.in.Cap() {
		v, ok := b.in.Poll()
		if !ok {
			return n, !b.in.Done()
		}
		b.acc = b.add(b.acc, v)
	}
	return b.in.Cap(), true
}

// bucketStart returns the start of the width-aligned bucket holding t.
func bucketStart(t time.Time, width time.Duration) time.Time {
	off := time.Duration(t.UnixNano() % int64(width))
	if off < 0 {
		off += width
	}
	return t.Add(-off)
}
