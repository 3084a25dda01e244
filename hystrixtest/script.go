package hystrixtest

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Answer is how one call of a Dependency answers: after Latency on the kit's clock, with
// the Dependency's value, Err, or a panic with Panic; or never, when Hang is set (the
// call then returns its context's error when the context ends). The zero Answer answers
// at once with the value. An Answer is a Script that answers every call alike.
type Answer struct {
	Latency time.Duration
	Err     error
	Panic   any
	Hang    bool
}

// OK answers with the Dependency's value.
func OK() Answer { return Answer{} }

// Fail answers with err.
func Fail(err error) Answer { return Answer{Err: err} }

// Panic panics with v (a FAILURE: the command recovers it into a *command.PanicError).
func Panic(v any) Answer { return Answer{Panic: v} }

// Hang never answers: the call waits until its context ends, at the command's timeout or
// when the caller gives up, and returns the context's error.
func Hang() Answer { return Answer{Hang: true} }

// After returns a with a latency of d: the call answers once the kit's clock has moved d
// on (a hang waits d before it starts to wait for ever, which changes nothing).
func (a Answer) After(d time.Duration) Answer {
	a.Latency = d
	return a
}

// Answer returns a itself, for every call.
func (a Answer) Answer(int, time.Duration) Answer { return a }

// Script decides how each call of a Dependency answers, from the number of the call (0
// for the first) and the time since the Dependency was made. A Dependency asks it once
// per call, in the order of the calls; the Scripts of this package are safe for
// concurrent use, so several Dependencies can share one.
type Script interface {
	Answer(call int, elapsed time.Duration) Answer
}

// Sequence answers call n with steps[n]'s answer; the calls after the last step answer
// with the last step.
func Sequence(steps ...Script) Script { return sequence(steps) }

type sequence []Script

func (s sequence) Answer(call int, elapsed time.Duration) Answer {
	if len(s) == 0 {
		return OK()
	}
	return s[min(call, len(s)-1)].Answer(call, elapsed)
}

// Until answers with before until the Dependency is d old, and with after from then on.
func Until(d time.Duration, before, after Script) Script { return until{d, before, after} }

type until struct {
	d             time.Duration
	before, after Script
}

func (u until) Answer(call int, elapsed time.Duration) Answer {
	if elapsed < u.d {
		return u.before.Answer(call, elapsed)
	}
	return u.after.Answer(call, elapsed)
}

// Chance is one Answer of Random and the probability of each call to get it.
type Chance struct {
	P      float64
	Answer Answer
}

// Random draws each call's answer from chances: the first with probability P, the next
// with its own P, and so on; the calls left over (1 minus the sum of P) answer OK. The
// draws come from a PCG generator seeded with seed, so a test sees the same answers in
// the same order in every run.
func Random(seed uint64, chances ...Chance) Script {
	return &random{rng: rand.New(rand.NewPCG(seed, seed)), chances: chances}
}

type random struct {
	mu      sync.Mutex
	rng     *rand.Rand
	chances []Chance
}

func (r *random) Answer(int, time.Duration) Answer {
	r.mu.Lock()
	x := r.rng.Float64()
	r.mu.Unlock()
	for _, c := range r.chances {
		if x < c.P {
			return c.Answer
		}
		x -= c.P
	}
	return OK()
}
