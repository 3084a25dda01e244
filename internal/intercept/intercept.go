// Package intercept holds what the net/http and gRPC integrations (package hystrixhttp,
// module contrib/hystrixgrpc) share: the Setter each call's command is made from, and
// Call, which keeps the user code a middleware or interceptor starts from outliving it.
package intercept

import (
	"maps"
	"sync"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

const isolationStrategy = "execution.isolation.strategy"

// Base is an interceptor's Setter completed once: SEMAPHORE isolation unless the
// Setter sets a strategy (net/http and gRPC calls honour their context, so a goroutine
// pool would add a hand-off per call and protect nothing more). Every call then passes the
// same properties map, which the command package compares by pointer: no allocation and
// no difference to report. The zero Base is ready; the interceptor's Setter must not
// change after its first call.
type Base struct {
	once sync.Once
	s    command.Setter
}

// Of returns s completed, the first time; later calls return that first result.
func (b *Base) Of(s command.Setter) command.Setter {
	b.once.Do(func() {
		if _, set := s.Properties[isolationStrategy]; !set {
			props := maps.Clone(s.Properties)
			if props == nil {
				props = config.Overrides{}
			}
			props[isolationStrategy] = config.Semaphore.String()
			s.Properties = props
		}
		b.s = s
	})
	return b.s
}

// Setter returns s for one call x, named key(x) when key is set, else s.CommandKey when
// set, else def(x).
func Setter[X any](s command.Setter, key, def func(X) string, x X) command.Setter {
	switch {
	case key != nil:
		s.CommandKey = key(x)
	case s.CommandKey == "":
		s.CommandKey = def(x)
	}
	return s
}

// Call keeps a run from outliving the middleware or interceptor that made it. Under
// THREAD isolation the command gives the caller its outcome at the timeout while the run
// goes on (interrupted through its context) on a pool goroutine, or is still queued;
// a handler writing to a ResponseWriter or a gRPC stream, or an invoker filling a reply,
// must not do that after the interceptor returned. The zero Call is ready to use.
type Call struct {
	mu      sync.Mutex
	ended   bool
	running sync.WaitGroup
}

// Begin reports whether the run may start: false once End was called (the run was
// abandoned before it started). After a true Begin the run must call Done.
func (c *Call) Begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return false
	}
	c.running.Add(1)
	return true
}

// Done marks the end of the run Begin admitted.
func (c *Call) Done() { c.running.Done() }

// End stops a run that has not begun from beginning and waits for a begun one to
// return. It may be called more than once.
func (c *Call) End() {
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	c.running.Wait()
}
