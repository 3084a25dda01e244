package command

import (
	"github.com/rxhystrix/rxhystrix/adaptive"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/adaptivelimit"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// adaptiveLimit is ADAPTIVE isolation: the key's adaptive concurrency limit (package
// internal/adaptivelimit), in the semaphore's place. It takes a permit for the
// execution's criticality without waiting and gives it back when the rest of the chain
// returns, with what the attempt teaches the limit: its run's latency, a drop (TIMEOUT,
// FAILURE) or nothing (the caller left, the run never started, the goroutine unwound).
type adaptiveLimit struct{}

// adaptiveQueued is adaptiveLimit for a key with a queue (execution.isolation.adaptive.queueSize
// > 0): an execution may wait for a permit, so the stage is a waiting one.
type adaptiveQueued struct{ adaptiveLimit }

func (adaptiveQueued) waits() {}

// adaptiveFull is the limit's refusal: ADAPTIVE_REJECTED, neutral to health (load shed by
// design, see the event table), so the breaker neither counts it nor decides a trial on it.
var adaptiveFull = refusal{event: metrics.AdaptiveRejected, failure: RejectedAdaptiveExecution}

func (adaptiveLimit) forKey(k shape) (stage, bool) {
	if k.iso != config.Adaptive {
		return nil, false
	}
	if config.AdaptiveQueueSize.In(k.props).Get() > 0 {
		return adaptiveQueued{}, true
	}
	return adaptiveLimit{}, true
}

func (adaptiveLimit) enter(x *execution, a *attempt) (verdict, bool) {
	l := x.ks.adaptiveLimiter()
	if err := l.TryAcquire(adaptive.FromContext(x.parent)); err != nil {
		return a.refuse(&adaptiveFull, err), false
	}
	a.limit = l
	return verdict{}, true
}

func (adaptiveQueued) enter(x *execution, a *attempt) (verdict, bool) {
	l := x.ks.adaptiveLimiter()
	w, err := l.Acquire(adaptive.FromContext(x.parent))
	if err == nil && w != nil {
		var left bool
		if left, err = x.waitPermit(l, w); left {
			return verdict{kind: cancelled}, false
		}
	}
	if err != nil {
		return a.refuse(&adaptiveFull, err), false
	}
	a.limit = l
	return verdict{}, true
}

// waitPermit waits for w's permit until the caller leaves (left) or, with a timeout, for
// at most the execution timeout (adaptive.ErrQueueTimeout): err nil once it holds it.
func (x *execution) waitPermit(l *adaptivelimit.Limiter, w *adaptivelimit.Waiter) (left bool, err error) {
	if p := x.ks.props; config.ExecutionTimeoutEnabled.In(p).Get() {
		t := x.ks.rt.clk.AfterFunc(config.ExecutionTimeout.In(p).Get(), func() { l.Expire(w) })
		defer t.Stop()
	}
	if x.wait(w.Done()) {
		return false, w.Result()
	}
	if l.Cancel(w) {
		l.Release(0, 0, adaptivelimit.Ignored)
	}
	return true, nil
}

func (adaptiveLimit) exit(x *execution, a *attempt, v verdict) verdict {
	l := a.limit
	a.limit = nil
	if !a.executed {
		l.Release(0, 0, adaptivelimit.Ignored)
		return v
	}
	lat := a.runLatency()
	switch v.kind {
	case succeeded, badRequest:
		l.Release(a.start+lat, lat, adaptivelimit.Succeeded)
	case failed, timedOut:
		l.Release(a.start+lat, lat, adaptivelimit.Dropped)
	default:
		l.Release(a.start+lat, lat, adaptivelimit.Ignored)
	}
	return v
}

// adaptiveGroup names the limiter the keys of an execution.isolation.adaptive.group share
// (the runtime's shared state).
type adaptiveGroup string

// limiterBinding is the limiter a key uses at one version of its properties.
type limiterBinding struct {
	l       *adaptivelimit.Limiter
	version uint64
	group   bool // l is the group's, not the key's own
}

// adaptiveLimiter returns the key's limiter, its own or its group's, configured from its
// properties as they are (bound again when one of them changed).
func (ks *keyState) adaptiveLimiter() *adaptivelimit.Limiter {
	version := ks.props.Version()
	if b := ks.limiter.Load(); b != nil && b.version == version {
		return b.l
	}
	return ks.bindLimiter(version)
}

// bindLimiter resolves and configures the key's limiter. The keys of a group share the
// group's limiter, configured by whichever key bound last: give them the same properties.
// Executions that bind at once agree on one binding (the first stored).
func (ks *keyState) bindLimiter(version uint64) *adaptivelimit.Limiter {
	s := adaptiveSettings(ks.props)
	group := config.AdaptiveGroup.In(ks.props).Get()
	for {
		old := ks.limiter.Load()
		var l *adaptivelimit.Limiter
		switch {
		case group != "":
			l, _ = sharedOf(ks.rt, adaptiveGroup(group), func() (*adaptivelimit.Limiter, error) { return adaptivelimit.NewLimiter(s), nil })
		case old != nil && !old.group:
			l = old.l
		default:
			l = adaptivelimit.NewLimiter(s)
		}
		if !ks.limiter.CompareAndSwap(old, &limiterBinding{l: l, version: version, group: group != ""}) {
			if b := ks.limiter.Load(); b != nil && b.version == version {
				return b.l
			}
			continue
		}
		l.Configure(s)
		if old == nil || old.l != l {
			ks.metrics.SetAdaptiveGauges(func() metrics.AdaptiveGauges {
				return metrics.AdaptiveGauges{Limit: l.Limit(), Inflight: l.Inflight(), Queued: l.Queued()}
			})
		}
		return l
	}
}

// adaptiveSettings are the limiter settings of a key's properties.
func adaptiveSettings(p *config.CommandProperties) adaptivelimit.Settings {
	s := adaptivelimit.Settings{
		MinLimit:     config.AdaptiveMinLimit.In(p).Get(),
		MaxLimit:     config.AdaptiveMaxLimit.In(p).Get(),
		InitialLimit: config.AdaptiveInitialLimit.In(p).Get(),
		Window:       config.AdaptiveWindow.In(p).Get(),
		QueueSize:    config.AdaptiveQueueSize.In(p).Get(),
		Reserved:     config.AdaptiveReserved.In(p).Get().Shares(),
	}
	if config.AdaptiveAlgorithmKey.In(p).Get() == config.Vegas {
		s.Algorithm = adaptivelimit.Vegas{}
	}
	return s
}
