package hystrixtest

import (
	"context"
	"sync"
	"time"
)

// Dependency is a scripted dependency: its Run is a command's run that answers each call
// as its Script says, on the kit's clock. It is safe for concurrent use.
type Dependency[T any] struct {
	k      *Kit
	value  T
	script Script
	born   time.Time

	mu    sync.Mutex
	calls int
}

// NewDependency returns a Dependency of k that answers value, or what script says.
func NewDependency[T any](k *Kit, value T, script Script) *Dependency[T] {
	return &Dependency[T]{k: k, value: value, script: script, born: k.clk.Now()}
}

// Run answers one call: give it to command.New or Kind.New as the command's run. A
// latency or a hang waits on the kit's clock (see the package documentation: a call of
// the test's goroutine moves the clock itself, a call of Kit.Go waits for Advance) and
// ends early, with ctx's error, when ctx ends.
func (d *Dependency[T]) Run(ctx context.Context) (T, error) {
	d.mu.Lock()
	n := d.calls
	d.calls++
	a := d.script.Answer(n, d.k.clk.Since(d.born))
	d.mu.Unlock()
	var zero T
	if err := d.k.pause(ctx, a.Latency, a.Hang); err != nil {
		return zero, err
	}
	if a.Panic != nil {
		panic(a.Panic)
	}
	if a.Err != nil {
		return zero, a.Err
	}
	return d.value, nil
}

// Calls returns how many calls reached the dependency.
func (d *Dependency[T]) Calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}
