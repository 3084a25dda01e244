package command

import (
	"math/rand/v2"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// faultInjection is chaos on purpose (faultInjection.* properties): it picks
// faultInjection.percentage of the executions at random and makes each go through the
// fault faultInjection.fault names. It sits inside the timeout, so the clock runs and an
// injected delay or hang counts against it, and outside the goroutine pool, so the pick
// and its FAULT_INJECTED marker are made on the caller's goroutine before the run is
// handed over. An injected error, panic, latency or hang happens in run's place, where
// the dependency would misbehave (on the pool goroutine under THREAD; a LATENCY fault
// then runs run), and is classified, timed and counted as the real one would be
// (FAILURE, TIMEOUT, CANCELLED); an injected outcome (a short circuit, a rejection, a bad
// request) is recorded with its own event, failure type and health, as if its stage had
// decided it. FAULT_INJECTED itself is neutral to health: the fault is counted once, as
// what it imitates. A key with faultInjection.enabled=false or a percentage of 0 has no
// such stage: switched off by dynamic config, it costs nothing.
type faultInjection struct {
	fault     config.Fault
	always    bool   // percentage 100
	threshold uint64 // otherwise: a draw below it is picked
}

func (faultInjection) forKey(k shape) (stage, bool) {
	p := k.props
	pct := config.FaultInjectionPercentage.In(p).Get()
	if !config.FaultInjectionEnabled.In(p).Get() || pct <= 0 {
		return nil, false
	}
	f := faultInjection{fault: config.FaultInjectionFault.In(p).Get()}
	if pct >= 100 {
		f.always = true
	} else {
		f.threshold = uint64(pct / 100 * (1 << 64))
	}
	return f, true
}

func (f faultInjection) enter(x *execution, a *attempt) (verdict, bool) {
	if !f.always && x.ks.rt.draw() >= f.threshold {
		return verdict{}, true
	}
	return f.inject(a)
}

func (faultInjection) exit(_ *execution, _ *attempt, v verdict) verdict { return v }

// inject marks attempt a picked and hands its fault to run, or decides the outcome it
// imitates.
func (f faultInjection) inject(a *attempt) (verdict, bool) {
	a.addEvent(metrics.FaultInjected)
	switch f.fault {
	case config.FaultError, config.FaultPanic, config.FaultLatency, config.FaultHang:
		a.fault = uint8(f.fault) + 1
		return verdict{}, true
	}
	if !a.race.runEnded() { // the timer or the caller won meanwhile
		return a.race.lost(), false
	}
	cause := faultErrors[f.fault]
	if f.fault == config.FaultBadRequest {
		return a.decide(badRequest, cause), false
	}
	return a.refuse(injectedRefusals[f.fault], cause), false
}

// injectFault is what run does for an attempt with a fault.
func (a *attempt) injectFault() error {
	switch f := config.Fault(a.fault - 1); f {
	case config.FaultPanic:
		panic(faultErrors[f])
	case config.FaultLatency:
		if err := a.delay(config.FaultInjectionLatency.In(a.x.ks.props).Get()); err != nil {
			return err
		}
		return a.x.body.call(a)
	case config.FaultHang:
		ctx := a.ctx()
		<-ctx.Done()
		return ctx.Err()
	default:
		return faultErrors[f]
	}
}

// delay waits for d on the runtime's clock, or until the run's context ends (the timeout,
// the caller leaving), whose error it returns.
func (a *attempt) delay(d time.Duration) error {
	ctx := a.ctx()
	done := ctx.Done() // first: the deadline is armed before the delay starts
	t := a.x.ks.rt.clk.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return nil
	case <-done:
		return ctx.Err()
	}
}

// injectedRefusals are the refusals an injected outcome imitates.
var injectedRefusals = map[config.Fault]*refusal{
	config.FaultShortCircuited:     &shortCircuit,
	config.FaultSemaphoreRejected:  &semaphoreFull,
	config.FaultThreadPoolRejected: &poolFull,
	config.FaultRateLimited:        &rateLimited,
}

// faultError is what an injected fault gives instead of the dependency: the error of an
// ERROR fault, the panic value of a PANIC fault, the cause of an injected outcome.
type faultError struct {
	fault config.Fault
}

// Error returns "command: injected fault <FAULT>".
func (e *faultError) Error() string { return "command: injected fault " + e.fault.String() }

// faultErrors are the faultError of each fault (made once: an injection allocates none).
var faultErrors = func() map[config.Fault]*faultError {
	m := map[config.Fault]*faultError{}
	for f := config.FaultError; f <= config.FaultBadRequest; f++ {
		m[f] = &faultError{fault: f}
	}
	return m
}()

// draw returns a random number for a pick.
func (r *Runtime) draw() uint64 {
	if r.random != nil {
		return r.random()
	}
	return rand.Uint64()
}
