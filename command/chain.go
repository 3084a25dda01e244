package command

import (
	"fmt"
	"slices"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// stage is one named link of a command key's chain (see "Writing a stage" in DESIGN.md): a
// step or a wrapper. Stages are values shared by every execution of the key: what an
// execution owns lives in its execution, what one try owns in its attempt.
type stage any

// step is a stage that acts on the way in and on the way out of the rest of the chain: what
// most stages do (take a permit, give it back; start a clock, stop it; report a verdict).
// The chain runs its steps in one loop (link.run), so a step costs no frame of stack while
// the rest runs.
type step interface {
	// enter runs on the way in. ok false means the step decided v on its own: the rest is
	// skipped and the step's exit is not called (it took nothing that needs giving back).
	enter(x *execution, a *attempt) (v verdict, ok bool)
	// exit runs on the way out, innermost step first, with the verdict of the stages
	// inside; it returns the verdict its outer neighbour sees. When the goroutine unwinds
	// instead (runtime.Goexit in user code) it runs too, with the verdict aborted, so
	// whatever enter took is given back.
	exit(x *execution, a *attempt, v verdict) verdict
}

// wrapper is a stage that runs the rest of the chain itself: on another goroutine (the
// goroutine pool), or more than once with a fresh attempt each time (a retry, a hedge). It
// decides on its own or calls next.run, and gives back what it took in a deferred call.
type wrapper interface {
	run(x *execution, a *attempt, next next) verdict
}

// next is the rest of the chain, from the stage after the one that holds it.
type next = *link

// link is one stage of a chain variant and the link of the stage inside it (nil for the
// innermost).
type link struct {
	step  step
	wrap  wrapper
	next  *link
	waits bool // a stage from this one inward implements waiting
	holds bool // ... and one of those may hold the execution after its verdict (not handingBack)
	bare  bool // the link is the run stage alone: run(x, a) is a.runOnce() (a pool worker calls it so)
}

// maxSteps bounds the steps one link.run enters, and maxStages the stages of a chain
// (stagesOf): the layout has fewer.
const (
	maxSteps  = 12
	maxStages = 16
)

// run runs the rest of the chain from n for attempt a: it enters the steps in turn until
// one decides or a wrapper runs the rest, then exits the steps it entered, innermost
// first. If the goroutine unwinds instead (runtime.Goexit in user code), the exits still
// due run with the verdict aborted.
//
// Entries, the wrapper and exits all run from this frame: a goroutine that parks in the
// wrapper (THREAD isolation's caller) has one frame less whose return, once it is woken,
// the CPU mispredicts (a goroutine switch leaves the return-address predictor holding
// the other goroutine's calls: every frame a goroutine parks under costs a mispredict).
func (n *link) run(x *execution, a *attempt) verdict {
	var d descent
	defer func() {
		if !d.done {
			d.unwind(x, a)
		}
	}()
	v, ok := verdict{}, true
	for ; n.step != nil; n = n.next {
		if v, ok = n.step.enter(x, a); !ok {
			break
		}
		d.entered[d.k] = n
		d.k++
	}
	if ok {
		v = n.wrap.run(x, a, n.next)
	}
	for d.k > 0 { // the exits, in this frame: an exit's callees run one frame less deep
		d.k--
		v = d.entered[d.k].step.exit(x, a, v)
	}
	d.done = true
	return v
}

// descent is one link.run: the steps it entered and not yet exited.
type descent struct {
	entered [maxSteps]*link
	k       int
	done    bool // the exits ran: nothing is left to unwind
}

// unwind runs the exits still due, with the verdict aborted, when the goroutine unwinds
// through link.run.
func (d *descent) unwind(x *execution, a *attempt) {
	v := verdict{kind: aborted}
	for d.k > 0 {
		d.k--
		v = d.entered[d.k].step.exit(x, a, v)
	}
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

// handingBack is implemented by a waiting stage whose goroutine lets go of the execution
// before the caller learns its verdict (the goroutine pool: thread.handedBack), so that a
// Kind can reuse it.
type handingBack interface{ handsBack() }

// shape is what a key's chain is assembled from: its properties as they are now.
type shape struct {
	props *config.CommandProperties
	iso   config.IsolationStrategy // a stream key's is always SEMAPHORE
	rt    *Runtime                 // for what a stage shares across keys (a rate limiter group)
	m     *metrics.CommandMetrics  // the key's metrics, for the gauges of what a stage holds
}

// layout is every stage in its place, outermost first: the one place where stages are
// put in order (docs/commands-and-chain.md draws it; chain_doc_test.go holds the drawing
// to it). A new stage is one line here. A runtime assembles its keys' chains from its copy
// (Runtime.layout), which only this package's tests change.
var layout = [...]stage{
	requestCache{},
	terminal{},
	onStart{},
	fallback{},
	retry{},
	hedge{},
	breakerGate{},
	throttleGate{},
	rateLimit{},
	semaphore{},
	adaptiveLimit{},
	timeout{},
	faultInjection{},
	threadPool{},
	run{},
}

// stagesOf returns the stages of the runtime's layout a key of shape k uses, outermost
// first.
func stagesOf(k shape) (stages [maxStages]stage) {
	n := 0
	for _, s := range k.rt.layout {
		if o, ok := s.(optional); ok {
			if s, ok = o.forKey(k); !ok {
				continue
			}
		}
		if _, isStep := s.(step); !isStep {
			if _, isWrapper := s.(wrapper); !isWrapper {
				panic(fmt.Sprintf("command: %T in the layout is neither a step nor a wrapper", s))
			}
		}
		if n == maxStages {
			panic(fmt.Sprintf("command: a key uses more than maxStages (%d) stages", maxStages))
		}
		stages[n] = s
		n++
	}
	return stages
}

// newChain links stages (outermost first, up to the first nil) into a chain onto tail (the
// chain inside them; nil for none) and returns its outermost link. It panics if more than
// maxSteps steps follow each other with no wrapper between them: one link.run would enter
// more than its descent holds.
func newChain(stages [maxStages]stage, tail *link) *link {
	c := tail
	steps := 0
	for _, s := range slices.Backward(stages[:slices.Index(stages[:], stage(nil))]) {
		l := &link{next: c}
		l.step, _ = s.(step)
		l.wrap, _ = s.(wrapper)
		_, l.waits = s.(waiting)
		_, back := s.(handingBack)
		l.holds = l.waits && !back || c != nil && c.holds
		l.waits = l.waits || c != nil && c.waits
		_, l.bare = s.(run)
		l.bare = l.bare && c == nil
		if steps = 0; l.step != nil {
			steps = 1
			for n := l.next; n != nil && n.step != nil; n = n.next {
				steps++
			}
		}
		if steps > maxSteps {
			panic(fmt.Sprintf("command: %d steps follow each other in a chain, more than maxSteps (%d)", steps, maxSteps))
		}
		c = l
	}
	return c
}

// owning is implemented by a stage that may own state of its key (graded throttling's
// window, a key's own retry budget or adaptive limiter): a chain with one that does is the
// key's own, not kept among the runtime's shared chains, so it goes when the key's chain
// is picked again or the key is forgotten; forget lets go of what the runtime keeps for
// the stage (forgetStages).
type owning interface {
	ownsKeyState() bool
	forget(r *Runtime)
}

// chainOf returns the runtime's chain of stages (its outermost link), made on first use:
// the keys of a runtime share the few chains their properties ask for, so a key costs no
// chain of its own. A stage that owns state of the key (owning) makes the links from the
// outermost to it the key's own; the links inside it are the runtime's shared ones.
func (r *Runtime) chainOf(stages [maxStages]stage) *link {
	own := -1
	for i, s := range stages {
		if o, ok := s.(owning); ok && o.ownsKeyState() {
			own = i
		}
	}
	if own < 0 {
		return r.sharedChain(stages)
	}
	var outer, inner [maxStages]stage
	copy(outer[:], stages[:own+1])
	copy(inner[:], stages[own+1:])
	return newChain(outer, r.sharedChain(inner))
}

// sharedChain returns the runtime's chain of stages, none of which owns state of a key,
// made on first use; nil for no stage.
func (r *Runtime) sharedChain(stages [maxStages]stage) *link {
	if stages[0] == nil {
		return nil
	}
	if c, ok := r.chains.Load(stages); ok {
		return c.(*link)
	}
	c, _ := r.chains.LoadOrStore(stages, newChain(stages, nil))
	return c.(*link)
}

// drive runs x's chain for its first attempt on the current goroutine and returns the
// final verdict.
func (x *execution) drive() verdict {
	return x.stages.run(x, &x.first)
}
