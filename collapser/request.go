package collapser

import (
	"sync"

	"github.com/rxhystrix/rxhystrix/cache"
)

// Request is one request in a batch (Hystrix's CollapsedRequest): the caller's argument
// and the slot its response goes to. Callers that share a response (duplicates with the
// request cache on) share one Request. Its methods are safe for concurrent use.
//
// The first SetResponse or SetError decides the outcome; later calls are ignored.
type Request[A, R any] struct {
	arg A

	// Batching state, guarded by the collapser's mutex.
	b         *batch[A, R]
	rc        *cache.RequestContext // where the request is cached, nil when it is not
	cacheKey  string
	cached    bool // cacheKey is in use (in b.dedup and, with rc, in the request cache)
	waiters   int  // callers waiting for the outcome
	abandoned bool // every caller left before the outcome: never join it again

	// Outcome, guarded by mu. vals only grows; one avoids an allocation for one value.
	mu       sync.Mutex
	one      [1]R
	vals     []R
	err      error
	resolved bool          // the outcome is final
	done     chan struct{} // closed when resolved
	changed  chan struct{} // made on demand by a streaming reader, closed on a new value
}

func newRequest[A, R any](arg A) *Request[A, R] {
	r := &Request[A, R]{arg: arg, done: make(chan struct{})}
	r.vals = r.one[:0]
	return r
}

// Argument returns the request's argument.
func (r *Request[A, R]) Argument() A { return r.arg }

// SetResponse gives the request its response (for a streaming collapser: one last
// response, then completion).
func (r *Request[A, R]) SetResponse(v R) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resolved {
		return
	}
	r.vals = append(r.vals, v)
	r.resolveLocked(nil)
}

// SetError fails the request with err.
func (r *Request[A, R]) SetError(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.resolved {
		r.resolveLocked(err)
	}
}

// emit adds one response of a streaming batch without completing the request.
func (r *Request[A, R]) emit(v R) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resolved {
		return
	}
	r.vals = append(r.vals, v)
	r.notifyLocked()
}

// complete ends a streaming request with the responses it has.
func (r *Request[A, R]) complete() { r.SetError(nil) }

// responded reports whether the request got a response or an outcome.
func (r *Request[A, R]) responded() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.resolved || len(r.vals) > 0
}

func (r *Request[A, R]) resolveLocked(err error) {
	r.err = err
	r.resolved = true
	close(r.done)
	r.notifyLocked()
}

func (r *Request[A, R]) notifyLocked() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// result returns the single response or the error of a resolved request.
func (r *Request[A, R]) result() (R, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var v R
	switch {
	case r.err != nil:
		return v, r.err
	case len(r.vals) > 0:
		return r.vals[0], nil
	}
	return v, ErrNoResponse
}

// since returns the responses from index from on, the error and whether the request is
// resolved; when it is not and nothing is new, changed is closed on the next change.
func (r *Request[A, R]) since(from int) (vals []R, err error, resolved bool, changed <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vals, err, resolved = r.vals[from:], r.err, r.resolved
	if len(vals) == 0 && !resolved {
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed = r.changed
	}
	return vals, err, resolved, changed
}
