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

// health is what a breaker needs of its command key's metrics (*metrics.CommandMetrics).
type health interface {
	ResetHealthCounts()
	LiveHealthCounts() metrics.HealthCounts
}

// breaker is the CircuitBreaker of one command key. Readers use one atomic load of the
// current status; every transition happens under mu, which the CLOSED path never takes,
// so that transitions reach listeners in the order they happened.
type breaker struct {
	st     atomic.Pointer[status]
	mu     sync.Mutex
	key    string
	p      props // read on every call: dynamic
	clk    clock.Clock
	base   time.Time
	health health
	emit   func(Transition)
}

// props are the key's circuitBreaker.* properties.
type props struct {
	enabled, forceOpen, forceClosed, evaluateOnFailure *config.Property[bool]
	sleepWindow                                        *config.Property[time.Duration]
	volume, threshold                                  *config.Property[int]
}

func propsOf(p *config.CommandProperties) props {
	return props{
		enabled:           config.CircuitBreakerEnabled.In(p),
		forceOpen:         config.CircuitBreakerForceOpen.In(p),
		forceClosed:       config.CircuitBreakerForceClosed.In(p),
		evaluateOnFailure: config.CircuitBreakerEvaluateOnFailure.In(p),
		sleepWindow:       config.CircuitBreakerSleepWindow.In(p),
		volume:            config.CircuitBreakerRequestVolumeThreshold.In(p),
		threshold:         config.CircuitBreakerErrorThresholdPercentage.In(p),
	}
}

func newBreaker(key string, p *config.CommandProperties, clk clock.Clock, h health, emit func(Transition)) *breaker {
	b := &breaker{key: key, p: propsOf(p), clk: clk, base: clk.Now(), health: h, emit: emit}
	b.st.Store(&status{state: Closed, gen: 1})
	return b
}

// since returns the time elapsed since the breaker's base; it is the only clock read.
func (b *breaker) since() time.Duration { return b.clk.Now().Sub(b.base) }

// AllowRequest implements CircuitBreaker.
func (b *breaker) AllowRequest() bool {
	if pass, decided := b.overridden(); decided {
		return pass
	}
	s := b.st.Load()
	return s.state == Closed || b.trialDue(s, b.since())
}

// Attempt implements CircuitBreaker.
func (b *breaker) Attempt() (Ticket, bool) {
	s := b.st.Load()
	if pass, decided := b.overridden(); decided {
		return s.gen, pass
	}
	if s.state == Closed {
		return s.gen, true
	}
	now := b.since()
	if !b.trialDue(s, now) {
		return 0, false
	}
	return b.startTrial(s, now)
}

// overridden applies enabled, forceOpen and forceClosed, read on every call.
func (b *breaker) overridden() (pass, decided bool) {
	if !b.p.enabled.Get() {
		return true, true
	}
	if b.p.forceOpen.Get() {
		return false, true
	}
	if b.p.forceClosed.Get() {
		return true, true
	}
	return false, false
}

// trialDue reports whether a trial may start: in OPEN once the sleep window is over
// (or was released), in HALF_OPEN once the trial in progress is older than one sleep
// window (its command never reported back).
func (b *breaker) trialDue(s *status, now time.Duration) bool {
	switch s.state {
	case Open:
		return s.released || now-s.stamp >= b.p.sleepWindow.Get()
	case HalfOpen:
		return now-s.stamp >= b.p.sleepWindow.Get()
	}
	return false
}

// startTrial lets exactly one of the callers that saw seen start the trial.
func (b *breaker) startTrial(seen *status, now time.Duration) (Ticket, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.st.Load()
	if cur != seen {
		return cur.gen, cur.state == Closed
	}
	if seen.state == HalfOpen {
		b.set(&status{state: Open, released: true, stamp: seen.stamp},
			fmt.Sprintf("trial abandoned: no verdict within the sleep window (%s)", b.p.sleepWindow.Get()))
	}
	reason := "sleep window elapsed: trial request"
	if seen.released || seen.state == HalfOpen {
		reason = "previous trial ended without a verdict: trial request"
	}
	return b.set(&status{state: HalfOpen, stamp: now}, reason), true
}

// set publishes next as the following generation and reports the transition; b.mu must
// be held. It returns next's generation.
func (b *breaker) set(next *status, reason string) Ticket {
	from := b.st.Load()
	next.gen = from.gen + 1
	b.st.Store(next)
	b.emit(Transition{Key: b.key, From: from.state, To: next.state, Reason: reason, At: b.clk.Now()})
	return next.gen
}

// Report implements CircuitBreaker. A success in CLOSED returns after one atomic load.
func (b *breaker) Report(t Ticket, o Outcome) {
	s := b.st.Load()
	if s.gen != t || (s.state == Closed && o != Failure) || !b.p.enabled.Get() {
		return
	}
	switch s.state {
	case Closed:
		if b.p.evaluateOnFailure.Get() {
			// the failure reported is not in the key's metrics yet: count it here
			h := b.health.LiveHealthCounts()
			b.trip(metrics.NewHealthCounts(h.TotalRequests+1, h.ErrorCount+1), t, "counted at a failure")
		}
	case HalfOpen:
		switch o {
		case Success:
			// Fresh health counts before the breaker closes: snapshots are ignored while
			// it is HALF_OPEN, so the failures that opened it cannot trip it again.
			b.health.ResetHealthCounts()
			b.endTrial(t, &status{state: Closed}, "trial succeeded")
		case Failure:
			b.endTrial(t, &status{state: Open, stamp: b.since()}, "trial failed")
		case Cancelled:
			b.endTrial(t, &status{state: Open, stamp: b.since()}, "trial cancelled")
		case BadRequest:
			b.endTrial(t, &status{state: Open, released: true, stamp: s.stamp},
				"trial released without a verdict (bad request)")
		}
	}
}

// endTrial publishes next if the trial of generation t is still the current state.
func (b *breaker) endTrial(t Ticket, next *status, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.st.Load(); s.gen == t && s.state == HalfOpen {
		b.set(next, reason)
	}
}

// IsOpen implements CircuitBreaker.
func (b *breaker) IsOpen() bool {
	if !b.p.enabled.Get() {
		return false
	}
	if b.p.forceOpen.Get() {
		return true
	}
	if b.p.forceClosed.Get() {
		return false
	}
	return b.st.Load().state != Closed
}

// State implements CircuitBreaker.
func (b *breaker) State() State { return b.st.Load().state }

// Reset implements CircuitBreaker.
func (b *breaker) Reset() {
	if b.st.Load().state == Closed {
		return
	}
	b.health.ResetHealthCounts()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.st.Load().state != Closed {
		b.set(&status{state: Closed}, "reset by operator")
	}
}

// onHealth receives every HealthCounts snapshot of the command key and opens a CLOSED
// breaker when both the request volume and the error percentage reach their thresholds.
func (b *breaker) onHealth(h metrics.HealthCounts) {
	if b.p.enabled.Get() {
		b.trip(h, 0, "")
	}
}

// trip opens a CLOSED breaker (of generation gen; 0: any) if h reaches both thresholds.
// A window without errors never trips it, whatever the thresholds.
func (b *breaker) trip(h metrics.HealthCounts, gen Ticket, how string) {
	volume, threshold := b.p.volume.Get(), b.p.threshold.Get()
	if h.ErrorCount == 0 || h.TotalRequests < int64(volume) || h.ErrorPercentage < threshold {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.st.Load(); s.state != Closed || (gen != 0 && s.gen != gen) {
		return
	}
	reason := fmt.Sprintf("error percentage %d%% >= %d%% over %d requests", h.ErrorPercentage, threshold, h.TotalRequests)
	if how != "" {
		reason += ", " + how
	}
	b.set(&status{state: Open, stamp: b.since()}, reason)
}
