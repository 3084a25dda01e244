package command

import (
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// breakerGate asks the key's circuit breaker before anything is isolated, and reports the
// verdict of the stages inside it to the breaker with the ticket it was let through with,
// on its own way out (before the fallback runs, and before the completion reaches the
// key's metrics: the breaker counts a reported failure itself). A key with
// circuitBreaker.enabled=false has no gate: its breaker would let everything through.
type breakerGate struct{}

// shortCircuit is the gate's refusal: SHORT_CIRCUITED.
var shortCircuit = refusal{event: metrics.ShortCircuited, failure: ShortCircuit}

func (breakerGate) forKey(k shape) (stage, bool) {
	return breakerGate{}, config.CircuitBreakerEnabled.In(k.props).Get()
}

func (breakerGate) enter(x *execution, a *attempt) (verdict, bool) {
	t, ok := x.ks.breaker.Attempt()
	if !ok {
		return a.refuse(&shortCircuit, ErrShortCircuited), false
	}
	a.ticket = t
	return verdict{}, true
}

func (breakerGate) exit(x *execution, a *attempt, v verdict) verdict {
	x.ks.breaker.Report(a.ticket, v.breakerOutcome())
	return v
}
