package command

import "github.com/rxhystrix/rxhystrix/config"

// stage is one named link of a command key's chain (see "Writing a stage" in doc.go).
// Stages are values shared by every execution of the key: what an execution owns lives in
// its execution, what one try owns in its attempt.
type stage interface {
	// run is the stage around the rest of the chain: it decides on its own (returning a
	// verdict without calling next), or calls next.run once (most stages), or more than
	// once with a fresh attempt each time (a retry, a hedge), and returns the verdict its
	// outer neighbour sees. Whatever it takes it gives back in a deferred call, so that a
	// goroutine unwinding through it (runtime.Goexit in user code) gives it back too.
	run(x *execution, a *attempt, next next) verdict
}

// next is the rest of the chain, from the stage after the one that holds it.
type next struct{ stages []stage }

// run runs the rest of the chain for attempt a.
func (n next) run(x *execution, a *attempt) verdict {
	return n.stages[0].run(x, a, next{n.stages[1:]})
}

// optional is implemented by a stage that not every key uses: given the key's shape it
// returns the stage as the key uses it, or false to leave it out of the key's chain.
type optional interface {
	forKey(k shape) (stage, bool)
}

// waiting is implemented by a stage that may wait for another goroutine (the goroutine
// pool, a retry's backoff): a door that must not block (Queue, Observe) runs a chain with
// such a stage on a goroutine of its own (execution.driveAsync).
type waiting interface{ waits() }

// shape is what a key's chain is assembled from: its properties as they are now.
type shape struct {
	props *config.CommandProperties
	iso   config.IsolationStrategy // a stream key's is always SEMAPHORE
}

// layout is every stage in its place, outermost first: the one place where stages are
// put in order (doc.go draws it). A new stage is one line here.
var layout = []stage{
	requestCache{},
	terminal{},
	onStart{},
	fallback{},
	breakerGate{},
	semaphore{},
	timeout{},
	threadPool{},
	run{},
}

// chain is a command key's stages, outermost first, as assembled from its properties at
// one version of them (keyState.currentChain).
type chain struct {
	stages  []stage
	version uint64 // config.CommandProperties.Version at assembly
	waits   bool   // a stage implements waiting
}

// assemble builds the chain of a key of shape k from the layout.
func assemble(k shape, version uint64) *chain {
	c := &chain{version: version}
	for _, s := range layout {
		if o, ok := s.(optional); ok {
			if s, ok = o.forKey(k); !ok {
				continue
			}
		}
		c.stages = append(c.stages, s)
		_, w := s.(waiting)
		c.waits = c.waits || w
	}
	return c
}

// drive runs x's chain for its first attempt on the current goroutine and returns the
// final verdict.
func (x *execution) drive() verdict {
	return next{x.chain.stages}.run(x, &x.first)
}
