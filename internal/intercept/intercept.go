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

// Setter returns s for one call x, named key(x) when key is set, else s.CommandKey when
// set, else def(x). The first time that key is seen in s's runtime (the only time the
// command package reads a Setter's properties) it also sets SEMAPHORE isolation unless s
// sets a strategy: net/http and gRPC calls honour their context, so a goroutine pool
// would add a hand-off per call and protect nothing more. Later calls cost one lookup
// and no allocation.
func Setter[X any](s command.Setter, key, def func(X) string, x X) command.Setter {
	switch {
	case key != nil:
		s.CommandKey = key(x)
	case s.CommandKey == "":
		s.CommandKey = def(x)
	}
	if _, set := s.Properties[isolationStrategy]; set {
		return s
	}
	rt := s.Runtime
	if rt == nil {
		rt = command.Default()
	}
	if group, _ := rt.CommandKeys(s.CommandKey); group != "" {
		return s
	}
	props := maps.Clone(s.Properties)
	if props == nil {
		props = config.Overrides{}
	}
	props[isolationStrategy] = "SEMAPHORE"
	s.Properties = props
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
