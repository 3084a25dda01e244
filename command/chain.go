package command

import "github.com/rxhystrix/rxhystrix/config"

// stage is one named link of a command key's chain. Stages are stateless values shared by
// every execution of the key: what one execution owns lives in its execution.
type stage interface {
	// enter runs on the way in. pending goes on to the next stage; suspended means the
	// stage will resume the chain later (execution.resume) and gets its exit then; any
	// other verdict is decided here: the inner stages are skipped and this stage's exit is
	// not called (it took nothing that needs giving back).
	enter(x *execution) verdict
	// exit runs on the way out, innermost stage first, with the verdict of the stages
	// inside; it returns the verdict its outer neighbour sees.
	exit(x *execution, v verdict) verdict
}

// chain is the assembled list of stages, outermost first.
type chain []stage

// chains are the assembled chains, by config.IsolationStrategy. Stages keep no state, so
// every key shares them; the isolation strategy is read per execution (it is dynamic).
var chains = [...]chain{config.Thread: assemble(config.Thread), config.Semaphore: assemble(config.Semaphore)}

// assemble builds the chain for one isolation strategy (see doc.go).
func assemble(iso config.IsolationStrategy) chain {
	c := chain{requestCache{}, terminal{}, onStart{}, fallback{}, breakerGate{}}
	if iso == config.Thread {
		return append(c, timeout{eager: true}, threadPool{})
	}
	return append(c, semaphore{}, timeout{}, run{})
}

// run drives x through the chain: it enters the stages from x.at (0 for a new execution)
// until one decides, then exits the stages entered, innermost first. Given a verdict
// other than pending it only exits: that is how a suspended chain resumes. It returns
// suspended if a stage suspended the chain, else the final verdict.
//
// If the goroutine unwinds through run instead of returning (runtime.Goexit in user code
// running inline), the exits still due, the one of the stage being entered included, run
// with the verdict aborted, so every permit is released and the outcome recorded.
func (c chain) run(x *execution, v verdict) verdict {
	normal := false
	defer func() {
		if !normal {
			c.exit(x, aborted)
		}
	}()
	for v == pending {
		x.at++ // before enter: once a stage suspends, the resumer owns x
		if v = c[x.at-1].enter(x); v != pending && v != suspended {
			x.at-- // the stage decided: its exit is not due
		}
	}
	if v != suspended {
		v = c.exit(x, v)
	}
	normal = true
	return v
}

// exit runs the exits of the stages entered and not yet exited, innermost first.
func (c chain) exit(x *execution, v verdict) verdict {
	for x.at > 0 {
		x.at--
		v = c[x.at].exit(x, v)
	}
	return v
}
