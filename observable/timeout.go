package observable

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/clock"
)

// ErrTimeout is the error item Timeout emits when the source does not terminate in time.
var ErrTimeout = errors.New("observable: timeout")

// States of one Timeout subscription; the terminal ones are reached by a single CAS.
const (
	timeoutRunning int32 = iota
	timeoutFinished
	timeoutTimedOut
)

// Timeout returns a cold observable that mirrors src but, when src has not terminated d
// after the subscription (clk time), emits ErrTimeout as an error item (so
// OnErrorResumeNext and OnErrorReturn see it) and cancels the context src was observed
// with. The timer and the source's terminal item (completion or error) race with a CAS:
// exactly one wins and the loser's signals are dropped. Values src emits before the timer
// wins pass through, as in Hystrix. When the subscriber's context ends first, the
// observable ends without an item and src is cancelled. A d <= 0 times out at once (on a
// clock.Fake: at the next Advance).
func Timeout(src rxgo.Observable, d time.Duration, clk clock.Clock) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		upCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		run := &timeoutRun{cancel: cancel}
		timer := clk.AfterFunc(d, run.fire)
		defer timer.Stop()
		run.forward(ctx, upCtx, src.Observe(rxgo.WithContext(upCtx)), next)
	}})
}

// timeoutRun is the state one subscription shares with its timer.
type timeoutRun struct {
	state  atomic.Int32
	cancel context.CancelFunc
}

// fire is the timer callback: if the source has not terminated, time out and cancel it.
func (r *timeoutRun) fire() {
	if r.state.CompareAndSwap(timeoutRunning, timeoutTimedOut) {
		r.cancel()
	}
}

// forward copies up to next until src terminates, the timer wins or ctx ends.
func (r *timeoutRun) forward(ctx, upCtx context.Context, up <-chan rxgo.Item, next chan<- rxgo.Item) {
	for {
		select {
		case it, ok := <-up:
			switch {
			case !ok && ctx.Err() != nil:
				return // the subscriber left; the source closed because of it
			case !ok || it.Error():
				if !r.state.CompareAndSwap(timeoutRunning, timeoutFinished) {
					it = rxgo.Error(ErrTimeout)
				} else if !ok {
					return
				}
				it.SendContext(ctx, next)
				return
			case r.state.Load() == timeoutRunning:
				select {
				case next <- it:
				case <-upCtx.Done(): // the timer won while the value waited: drop it
				}
			}
		case <-upCtx.Done():
			if r.state.Load() == timeoutTimedOut {
				rxgo.Error(ErrTimeout).SendContext(ctx, next)
			}
			return
		}
	}
}
