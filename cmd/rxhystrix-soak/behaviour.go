package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/command"
)

// Errors the user code of the soak returns.
var (
	errDependency      = errors.New("soak: dependency failed")
	errBadRequest      = errors.New("soak: bad request")
	errBusiness        = errors.New("soak: business outcome")
	errClassifierPanic = errors.New("soak: the classifier panics on this one")
	errFallback        = errors.New("soak: fallback failed")
)

// classify is every key's Classifier: business outcomes count as successes, and it
// panics on errClassifierPanic (a hostile classifier).
func classify(err error) command.Class {
	switch {
	case errors.Is(err, errClassifierPanic):
		panic("soak: classifier panic")
	case errors.Is(err, errBusiness):
		return command.ClassSuccess
	}
	return command.DefaultClassifier(err)
}

// dependency is what the flapping keys call: down for the first 40 % of every period, so
// their breakers open and, once it is back, close again.
type dependency struct {
	start  time.Time
	period time.Duration
}

func (d dependency) down() bool { return time.Since(d.start)%d.period < d.period*2/5 }

// fault is how a run misbehaves.
type fault uint8

const (
	noFault         fault = iota
	depError              // errDependency: FAILURE
	runPanic              // FAILURE with a *command.PanicError
	badRequest            // command.BadRequest: BAD_REQUEST, no fallback
	business              // errBusiness: the classifier makes it a SUCCESS
	classifierPanic       // the classifier panics: FAILURE
	goexit                // runtime.Goexit: FAILURE
)

// delay is how long a run (or each item of a stream) takes.
type delay uint8

const (
	instant  delay = iota // returns at once, never looks at ctx
	brief                 // up to 2 ms, honouring ctx
	slow                  // 40 ms (12 ms per stream item) honouring ctx: past the timeout
	stubborn              // 40 ms ignoring ctx
)

// call is the plan of one execution: what its run, fallback and hooks do.
type call struct {
	k        *key
	dep      dependency
	fault    fault
	delay    delay
	hook     string // the hook method that panics, if any
	fbFail   bool   // the flaky fallback fails
	fbPanic  bool   // the flaky fallback panics
	fbSlow   bool   // the flaky fallback takes 1 ms (its semaphore fills up)
	items    int    // stream items
	failAt   int    // a failing stream fails before this item
	fbItems  int    // fallback stream items
	deadline time.Duration
}

// newCall draws the plan of one execution of k.
func newCall(k *key, dep dependency, rng *rand.Rand) *call {
	c := &call{k: k, dep: dep}
	switch r := rng.Float64(); {
	case r < 0.10:
		c.fault = depError
	case r < 0.11:
		c.fault = runPanic
	case r < 0.115:
		c.fault = badRequest
	case r < 0.12:
		c.fault = business
	case r < 0.123:
		c.fault = classifierPanic
	case r < 0.125 && k.kind == plain:
		c.fault = goexit
	}
	switch r := rng.Float64(); {
	case r < 0.78:
		c.delay = instant
	case r < 0.95:
		c.delay = brief
	case r < 0.99:
		c.delay = slow
	default:
		c.delay = stubborn
	}
	if rng.Float64() < 0.02 {
		all := len(failingHooks) + len(loggedHooks)
		if i := rng.IntN(all); i < len(failingHooks) {
			c.hook = failingHooks[i]
		} else {
			c.hook = loggedHooks[i-len(failingHooks)]
		}
	}
	if k.fb == flakyFallback {
		c.fbFail, c.fbPanic, c.fbSlow = rng.Float64() < 0.25, rng.Float64() < 0.05, rng.Float64() < 0.1
	}
	c.items, c.fbItems = 1+rng.IntN(4), 1+rng.IntN(2)
	c.failAt = rng.IntN(c.items)
	c.deadline = time.Millisecond + time.Duration(rng.Int64N(int64(19*time.Millisecond)))
	return c
}

// wait takes the call's delay; it returns ctx's error if ctx ended first.
func (c *call) wait(ctx context.Context, long time.Duration) error {
	var d time.Duration
	switch c.delay {
	case instant:
		return nil
	case brief:
		d = time.Duration(rand.Int64N(int64(2 * time.Millisecond)))
	case slow:
		d = long
	case stubborn:
		time.Sleep(long)
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failure returns the error the run fails with, after its side effects (panic, Goexit).
func (c *call) failure() error {
	if c.k.flaps && c.dep.down() {
		return errDependency
	}
	switch c.fault {
	case depError:
		return errDependency
	case runPanic:
		panic("soak: run panic")
	case badRequest:
		return command.BadRequest(errBadRequest)
	case business:
		return errBusiness
	case classifierPanic:
		return errClassifierPanic
	case goexit:
		runtime.Goexit()
	}
	return nil
}

// run is the run of a single-value command.
func (c *call) run(ctx context.Context) (tag, error) {
	if err := c.wait(ctx, 40*time.Millisecond); err != nil {
		return tag{}, err
	}
	return tag{}, c.failure()
}

// fallback is the fallback of a single-value command.
func (c *call) fallback(_ context.Context, cause error) (tag, error) {
	if err := c.fallbackFault(); err != nil {
		return tag{}, err
	}
	return fallbackTag(cause), nil
}

// fallbackFault is what the flaky fallback does wrong this time.
func (c *call) fallbackFault() error {
	if c.fbSlow {
		time.Sleep(time.Millisecond)
	}
	c.fallbackPanic()
	if c.fbFail {
		return errFallback
	}
	return nil
}

// fallbackPanic panics if the flaky fallback panics this time.
func (c *call) fallbackPanic() {
	if c.fbPanic {
		panic("soak: fallback panic")
	}
}

// construct is the construct of a stream: items values, each after the call's delay (12
// ms for a slow one, so the stream outlives its timeout), failing before item failAt.
func (c *call) construct(ctx context.Context) rxgo.Observable {
	if c.fault == runPanic {
		panic("soak: construct panic")
	}
	return rxgo.Defer([]rxgo.Producer{func(sub context.Context, next chan<- rxgo.Item) {
		for i := range c.items {
			if c.wait(sub, 12*time.Millisecond) != nil {
				return
			}
			if i == c.failAt {
				if err := c.failure(); err != nil {
					rxgo.Error(err).SendContext(sub, next)
					return
				}
			}
			if !rxgo.Of(tag{}).SendContext(sub, next) {
				return
			}
		}
	}})
}

// streamFallback is the fallback of a stream: fbItems values telling the cause, then the
// flaky fallback's failure if it fails. It panics itself, never on the producer's
// goroutine (no library can contain a panic on a goroutine the user started).
func (c *call) streamFallback(_ context.Context, cause error) rxgo.Observable {
	c.fallbackPanic()
	return rxgo.Defer([]rxgo.Producer{func(sub context.Context, next chan<- rxgo.Item) {
		for range c.fbItems {
			if !rxgo.Of(fallbackTag(cause)).SendContext(sub, next) {
				return
			}
		}
		if c.fbSlow {
			time.Sleep(time.Millisecond)
		}
		if c.fbFail {
			rxgo.Error(errFallback).SendContext(sub, next)
		}
	}})
}
