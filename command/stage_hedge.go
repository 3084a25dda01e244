package command

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/budget"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// hedge runs the rest of the chain on goroutines of its own, one attempt each: the first
// at once, then, while no attempt has answered, another after each delay
// (hedge.delayInMilliseconds, or the key's rolling run-latency percentile
// hedge.delayPercentile once it has hedgeMinSamples), up to hedge.maxHedges more: a
// wrapper just inside the retry (DESIGN.md says why). Each hedge is taken from the key's
// budget (BUDGET_EXHAUSTED: no more hedges), is an attempt of its own (HEDGE), asks the
// breaker, takes its own permit and is counted and told to the breaker on its own.
//
// The first attempt that succeeds (or is a BAD_REQUEST) wins: its value is the command's
// and the others are cancelled through their run contexts, left to end on their own
// goroutines and counted there (CANCELLED when they ended because of it). When every
// attempt fails the command's outcome is the last failure, its fallback runs once. When
// the caller leaves no hedge starts; the attempts end with it and the command is
// CANCELLED. A stream is never hedged (its values cannot be taken back), nor a call made
// WithoutRetry (it must not be sent twice) or WithoutHedge.
type hedge struct {
	original bool // no retry stage outside: the hedge records the budget's originals
	extra
}

// hedgeMinSamples is how many requests the key's rolling window must hold before its
// latency percentile replaces the fixed delay.
const hedgeMinSamples = 20

func (hedge) forKey(k shape) (stage, bool) {
	if config.HedgeMaxHedges.In(k.props).Get() <= 0 {
		return nil, false
	}
	return hedge{original: config.RetryMaxAttempts.In(k.props).Get() <= 1, extra: extraOf(k)}, true
}

func (hedge) waits() {}

// hedged is one attempt of a hedge: its verdict, once its goroutine delivers it to the
// stage or, abandoned by the stage, counts it itself.
type hedged struct {
	a     *attempt
	v     verdict
	state atomic.Uint32 // hedgeRunning, hedgeDelivered or hedgeAbandoned
}

// States of a hedged attempt.
const (
	hedgeRunning uint32 = iota
	hedgeDelivered
	hedgeAbandoned
)

func (h hedge) run(x *execution, a *attempt, next next) verdict {
	if x.body.streams() || x.parent.Value(noRetryKey{}) != nil || x.parent.Value(noHedgeKey{}) != nil {
		return next.run(x, a)
	}
	x.detach() // the attempts wait on goroutines of their own: the caller may go now
	if !x.timed {
		x.start, x.timed = x.now(), true
	}
	b := h.b
	if h.original && b != nil {
		b.Original(x.start)
	}
	p := x.ks.props
	maxHedges, until := config.HedgeMaxHedges.In(p).Get(), a.timeout
	done := make(chan *hedged, maxHedges+1)
	all := make([]*hedged, 0, maxHedges+1)
	launch := func(a *attempt) {
		a.hedged = true
		t := &hedged{a: a}
		all = append(all, t)
		x.ks.rt.detached.Add(1)
		go t.run(x, next, done, b)
	}
	tick := make(chan struct{}, 1)
	arm := func() func() bool {
		return x.ks.rt.clk.AfterFunc(x.hedgeDelay(), func() {
			select {
			case tick <- struct{}{}:
			default:
			}
		}).Stop
	}
	stop := arm() // before the first attempt runs: a test sees it armed once run is called
	defer func() { stop() }()
	launch(a)
	var quit chan struct{}
	if x.async != nil {
		quit = x.async.quit
	}
	leaving := x.parent.Done()
	var win, last *hedged
	gone := false
	for pending := 1; pending > 0 && win == nil; {
		select {
		case t := <-done:
			pending--
			if k := t.v.kind; k == succeeded || k == badRequest {
				win = t
			} else if last == nil || t.v.kind != cancelled || last.v.kind == cancelled {
				last = t // a failure that says more than a cancel stands
			}
		case <-tick:
			if gone || len(all) > maxHedges {
				break
			}
			if b != nil && !b.Withdraw(x.now()) {
				x.addEvent(metrics.BudgetExhausted)
				maxHedges = 0
				break
			}
			n := &attempt{x: x, timeout: until}
			n.addEvent(metrics.Hedge)
			launch(n)
			pending++
			if len(all) <= maxHedges {
				stop = arm()
			}
		case <-leaving:
			leaving, gone = nil, true
		case <-quit:
			quit, gone = nil, true
			if config.InterruptOnFutureCancel.In(p).Get() {
				for _, t := range all {
					if t.state.Load() == hedgeRunning {
						t.a.rcCancel(context.Canceled)
					}
				}
			}
		}
	}
	report := win
	if report == nil {
		report = last
	}
	for _, t := range all {
		if t == report {
			continue
		}
		if t.state.CompareAndSwap(hedgeRunning, hedgeAbandoned) {
			t.a.rcCancel(context.Canceled) // it counts itself when it ends
			continue
		}
		if t.state.Load() == hedgeDelivered && t != report {
			t.retire(x, b)
		}
	}
	x.last = report.a
	v := report.v
	if h.original && b != nil {
		spent(b, v)
	}
	switch {
	case gone && win == nil:
		return verdict{kind: cancelled}
	case v.kind == aborted: // runtime.Goexit on the attempt's goroutine
		return verdict{kind: failed, cause: errGoexit}
	case v.kind == succeeded:
		x.body.won(report.a)
		if x.hook != nil && v.cause == nil {
			x.body.emitted(report.a)
		}
	}
	return v
}

// run runs the rest of the chain for t's attempt on its own goroutine and delivers the
// verdict, or counts it if the stage gave the attempt up meanwhile. An attempt given up
// before its goroutine began (launched as the winner answered) takes no permit and never
// calls run: it counts itself CANCELLED; one given up after that but before its run began
// does not call run either (callRun). A run that calls runtime.Goexit delivers the
// verdict aborted on the way down.
func (t *hedged) run(x *execution, next next, done chan<- *hedged, b budget.Budget) {
	v := verdict{kind: aborted}
	defer func() {
		defer x.ks.rt.detached.Add(-1)
		t.v = v
		if t.state.CompareAndSwap(hedgeRunning, hedgeDelivered) {
			done <- t
			return
		}
		t.retire(x, b)
	}()
	if t.state.Load() == hedgeAbandoned { // the race was decided before this goroutine began:
		t.a.start, v = x.now(), verdict{kind: cancelled} // no permit taken, run never called
		return
	}
	v = next.run(x, t.a)
}

// retire counts an attempt of a hedge whose outcome is not the command's: a completion of
// its own, CANCELLED when it ended because the caller left or another attempt won (then
// without its latency, cut short: it would drag the percentile hedge.delayPercentile reads).
func (t *hedged) retire(x *execution, b budget.Budget) {
	a, events := t.a, t.a.events
	if t.v.kind == cancelled {
		events |= 1 << metrics.Cancelled
		a.endThread()
	}
	x.record(a, events, x.now()-a.start, t.v.kind == cancelled)
	if b != nil {
		spent(b, t.v)
	}
}

// hedgeDelay returns the wait before the next hedge: the key's rolling run-latency
// percentile hedge.delayPercentile once the window holds hedgeMinSamples requests, else
// hedge.delayInMilliseconds.
func (x *execution) hedgeDelay() time.Duration {
	p := x.ks.props
	if q := config.HedgeDelayPercentile.In(p).Get(); q > 0 && x.ks.metrics.HealthCounts().TotalRequests >= hedgeMinSamples {
		if d := x.ks.metrics.ExecutionLatencyPercentile(float64(q)); d > 0 {
			return d
		}
	}
	return config.HedgeDelay.In(p).Get()
}

// withdrawn reports whether a hedged attempt's run failed because the hedge cancelled its
// context (another attempt won): that is not the dependency's failure.
func (a *attempt) withdrawn(err error) bool {
	if err == nil {
		return false
	}
	a.rc.mu.Lock()
	defer a.rc.mu.Unlock()
	return a.rc.err == errCanceled
}

// noHedgeKey marks a context whose commands are never hedged (WithoutHedge).
type noHedgeKey struct{}

// WithoutHedge returns ctx marked so that a command executed with it (or a context made
// from it) runs one attempt at a time, whatever its key's hedge.maxHedges: a run that
// cannot run twice at once (hystrixhttp and hystrixgrpc mark theirs, whose calls keep
// one response at a time). WithoutRetry implies it.
func WithoutHedge(ctx context.Context) context.Context {
	return context.WithValue(ctx, noHedgeKey{}, true)
}
