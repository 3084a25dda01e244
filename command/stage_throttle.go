package command

import (
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/throttle"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// throttleGate is graded throttling (throttle.* properties; internal/throttle, Google SRE's
// client-side adaptive throttling): it refuses an execution locally with a probability
// that grows as the dependency accepts a smaller share of the key's requests, and counts
// the outcome of the executions it lets through. It sits inside the breaker's gate: a
// short circuit is not a request, and the breaker's trial (the breaker is not CLOSED) is
// never refused, so a recovered dependency is seen. Of the executions whose run started,
// an outcome the event table counts as healthy is an accept, an unhealthy one a request
// the dependency did not accept; a neutral one (a bad request, a caller that left) is not
// counted, nor a refusal on this side (a full semaphore or pool), which never reached the
// dependency. A refusal
// is THROTTLED, neutral to health, which the fallback recovers like a rejection.
//
// The stage is made per key and owns the key's throttle, so a throttled key has a chain
// of its own (owning): the window starts afresh when the key's chain is picked again (a
// property of the key changed) or the key was forgotten. A key with
// throttle.enabled=false has no such stage.
type throttleGate struct {
	t *throttle.Throttle
}

func (*throttleGate) ownsKeyState() bool { return true }

// forget does nothing: the throttle's window goes with the key's chain.
func (*throttleGate) forget(*Runtime) {}

// throttled is the throttle's refusal: THROTTLED.
var throttled = refusal{event: metrics.Throttled, failure: Throttled}

func (throttleGate) forKey(k shape) (stage, bool) {
	p := k.props
	if !config.ThrottleEnabled.In(p).Get() {
		return nil, false
	}
	rt := k.rt
	return &throttleGate{t: throttle.New(throttle.Settings{
		K:           config.ThrottleK.In(p).Get(),
		Window:      config.ThrottleWindow.In(p).Get(),
		MinRequests: config.ThrottleMinRequests.In(p).Get(),
		Random:      func() float64 { return float64(rt.draw()>>11) / (1 << 53) },
	})}, true
}

func (g *throttleGate) enter(x *execution, a *attempt) (verdict, bool) {
	if x.ks.breaker.IsOpen() || g.t.Allow(x.now()) { // open here: the gate let the trial through
		return verdict{}, true
	}
	return a.refuse(&throttled, ErrThrottled), false
}

func (g *throttleGate) exit(x *execution, a *attempt, v verdict) verdict {
	if !a.ran() {
		return v // refused on this side (a full semaphore or pool): the dependency said nothing
	}
	switch v.event().Health() {
	case metrics.Healthy:
		g.t.Record(x.now(), true)
	case metrics.Unhealthy:
		g.t.Record(x.now(), false)
	}
	return v
}
