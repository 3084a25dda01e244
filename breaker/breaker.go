package breaker

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// breaker is the CircuitBreaker of one command key. Readers use one atomic load of
// the packed state word; every state change happens under mu, which the CLOSED path
// never takes, so that transitions reach listeners in the order they happened.
type breaker struct {
	w           atomic.Uint64 // a packed word
	mu          sync.Mutex
	key         string
	p           *config.CommandProperties // read on every call: dynamic
	clk         clock.Clock
	base        time.Time
	resetHealth func()
	emit        func(Transition)
}

func newBreaker(key string, p *config.CommandProperties, clk clock.Clock, resetHealth func(), emit func(Transition)) *breaker {
	return &breaker{key: key, p: p, clk: clk, base: clk.Now(), resetHealth: resetHealth, emit: emit}
}

func (b *breaker) load() word { return word(b.w.Load()) }

// since returns the time elapsed since the breaker's base; it is the only clock read.
func (b *breaker) since() time.Duration { return b.clk.Now().Sub(b.base) }

// AllowRequest implements CircuitBreaker.
func (b *breaker) AllowRequest() bool {
	if pass, decided := b.overridden(); decided {
		return pass
	}
	w := b.load()
	if w.state() == Closed {
		return true
	}
	return b.trialDue(w, b.since())
}

// AttemptExecution implements CircuitBreaker.
func (b *breaker) AttemptExecution() bool {
	if pass, decided := b.overridden(); decided {
		return pass
	}
	w := b.load()
	if w.state() == Closed {
		return true
	}
	now := b.since()
	if !b.trialDue(w, now) {
		return false
	}
	return b.startTrial(w, now)
}

// overridden applies enabled, forceOpen and forceClosed, read on every call.
func (b *breaker) overridden() (pass, decided bool) {
	if !b.p.CircuitBreakerEnabled.Get() {
		return true, true
	}
	if b.p.CircuitBreakerForceOpen.Get() {
		return false, true
	}
	if b.p.CircuitBreakerForceClosed.Get() {
		return true, true
	}
	return false, false
}

// trialDue reports whether a trial may start: in OPEN once the sleep window is over
// (or was released), in HALF_OPEN once the trial in progress is older than one sleep
// window (its command never reported back).
func (b *breaker) trialDue(w word, now time.Duration) bool {
	switch w.state() {
	case Open:
		return w.released() || now-w.stamp() >= b.p.CircuitBreakerSleepWindow.Get()
	case HalfOpen:
		return now-w.stamp() >= b.p.CircuitBreakerSleepWindow.Get()
	}
	return false
}

// startTrial lets exactly one of the callers that saw w start the trial.
func (b *breaker) startTrial(seen word, now time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.load()
	if cur != seen {
		return cur.state() == Closed
	}
	if seen.state() == HalfOpen {
		b.set(pack(Open, seen.stamp(), true),
			fmt.Sprintf("trial abandoned: no verdict within the sleep window (%s)", b.p.CircuitBreakerSleepWindow.Get()))
	}
	reason := "sleep window elapsed: trial request"
	if cur.released() || seen.state() == HalfOpen {
		reason = "previous trial ended without a verdict: trial request"
	}
	b.set(pack(HalfOpen, now, false), reason)
	return true
}

// set stores w and reports the transition; b.mu must be held.
func (b *breaker) set(w word, reason string) {
	from := b.load().state()
	b.w.Store(uint64(w))
	b.emit(Transition{Key: b.key, From: from, To: w.state(), Reason: reason, At: b.clk.Now()})
}

// MarkSuccess implements CircuitBreaker.
func (b *breaker) MarkSuccess() {
	if !b.p.CircuitBreakerEnabled.Get() || b.load().state() != HalfOpen {
		return
	}
	// Fresh health counts before the breaker closes: snapshots are ignored while it
	// is HALF_OPEN, so the failures that opened it cannot trip it again.
	b.resetHealth()
	b.endTrial(pack(Closed, 0, false), "trial succeeded")
}

// MarkNonSuccess implements CircuitBreaker.
func (b *breaker) MarkNonSuccess() { b.reopen("trial failed") }

// MarkCancelled implements CircuitBreaker.
func (b *breaker) MarkCancelled() { b.reopen("trial cancelled") }

func (b *breaker) reopen(reason string) {
	if !b.p.CircuitBreakerEnabled.Get() || b.load().state() != HalfOpen {
		return
	}
	b.endTrial(pack(Open, b.since(), false), reason)
}

// ReleaseTrial implements CircuitBreaker. The breaker goes back to OPEN with its
// sleep window already over, so the next AttemptExecution starts a new trial.
func (b *breaker) ReleaseTrial() {
	if !b.p.CircuitBreakerEnabled.Get() {
		return
	}
	w := b.load()
	if w.state() != HalfOpen {
		return
	}
	b.endTrial(pack(Open, w.stamp(), true), "trial released without a verdict (bad request)")
}

// endTrial moves HALF_OPEN to next if the breaker is still HALF_OPEN.
func (b *breaker) endTrial(next word, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.load().state() != HalfOpen {
		return
	}
	b.set(next, reason)
}

// IsOpen implements CircuitBreaker.
func (b *breaker) IsOpen() bool {
	if !b.p.CircuitBreakerEnabled.Get() {
		return false
	}
	if b.p.CircuitBreakerForceOpen.Get() {
		return true
	}
	if b.p.CircuitBreakerForceClosed.Get() {
		return false
	}
	return b.load().state() != Closed
}

// State implements CircuitBreaker.
func (b *breaker) State() State { return b.load().state() }

// Reset implements CircuitBreaker.
func (b *breaker) Reset() {
	if b.load().state() == Closed {
		return
	}
	b.resetHealth()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.load().state() != Closed {
		b.set(pack(Closed, 0, false), "reset by operator")
	}
}

// onHealth receives every HealthCounts snapshot of the command key and opens a CLOSED
// breaker when both the request volume and the error percentage reach their thresholds.
// A window without errors never trips it, whatever the thresholds.
func (b *breaker) onHealth(h metrics.HealthCounts) {
	total, errors, percent := h.TotalRequests, h.ErrorCount, h.ErrorPercentage
	if !b.p.CircuitBreakerEnabled.Get() || b.load().state() != Closed {
		return
	}
	volume, threshold := b.p.CircuitBreakerRequestVolumeThreshold.Get(), b.p.CircuitBreakerErrorThresholdPercentage.Get()
	if errors == 0 || total < int64(volume) || percent < threshold {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.load().state() != Closed {
		return
	}
	b.set(pack(Open, b.since(), false),
		fmt.Sprintf("error percentage %d%% >= %d%% over %d requests", percent, threshold, total))
}
