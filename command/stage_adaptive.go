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
//
// It takes its limiter when it is assembled: the group's
// (execution.isolation.adaptive.group), shared with the group's keys and configured by
// whichever key was assembled last (give them the same properties), or the key's own,
// which makes the chain the key's (owning). Both live in the runtime's shared state, so
// a change of the key's properties configures the limiter it has, which keeps what it
// learnt; the key's own goes when the key is forgotten.
type adaptiveLimit struct {
	l   *adaptivelimit.Limiter
	own adaptiveOwn // the name of the key's own limiter; "" for a group's
}

// adaptiveQueued is adaptiveLimit for a key with a queue (execution.isolation.adaptive.queueSize
// > 0): an execution may wait for a permit, so the stage is a waiting one.
type adaptiveQueued struct{ adaptiveLimit }

func (adaptiveQueued) waits() {}

// adaptiveGroup and adaptiveOwn name limiters in the runtime's shared state: a group's,
// and a command key's own.
type (
	adaptiveGroup string
	adaptiveOwn   string
)

// adaptiveFull is the limit's refusal: ADAPTIVE_REJECTED, neutral to health (load shed by
// design, see the event table), so the breaker neither counts it nor decides a trial on it.
var adaptiveFull = refusal{event: metrics.AdaptiveRejected, failure: RejectedAdaptiveExecution}

func (adaptiveLimit) forKey(k shape) (stage, bool) {
	if k.iso != config.Adaptive {
		return nil, false
	}
	p := k.props
	s := adaptiveSettings(p)
	var g adaptiveLimit
	var name any = adaptiveGroup(config.AdaptiveGroup.In(p).Get())
	if name == adaptiveGroup("") {
		g.own = adaptiveOwn(p.Key())
		name = g.own
	}
	g.l, _ = sharedOf(k.rt, name, func() (*adaptivelimit.Limiter, error) { return adaptivelimit.NewLimiter(s), nil })
	g.l.Configure(s)
	l := g.l
	k.m.SetAdaptiveGauges(func() metrics.AdaptiveGauges {
		return metrics.AdaptiveGauges{Limit: l.Limit(), Inflight: l.Inflight(), Queued: l.Queued()}
	})
	if s.QueueSize > 0 {
		return adaptiveQueued{g}, true
	}
	return g, true
}

func (g adaptiveLimit) ownsKeyState() bool { return g.own != "" }

// forget drops the key's own limiter; a group's stays.
func (g adaptiveLimit) forget(r *Runtime) {
	if g.ownsKeyState() {
		r.forgetShared(g.own)
	}
}

func (g adaptiveLimit) enter(x *execution, a *attempt) (verdict, bool) {
	if err := g.l.TryAcquire(adaptive.FromContext(x.parent)); err != nil {
		return a.refuse(&adaptiveFull, err), false
	}
	return verdict{}, true
}

func (g adaptiveQueued) enter(x *execution, a *attempt) (verdict, bool) {
	l := g.l
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

func (g adaptiveLimit) exit(x *execution, a *attempt, v verdict) verdict {
	l := g.l
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
