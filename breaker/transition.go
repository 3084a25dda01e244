package breaker

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Transition is one state change of one breaker.
type Transition struct {
	Key      string    // command key
	From, To State     // From == To never happens
	Reason   string    // e.g. "error percentage 60% >= 50% over 25 requests", "trial succeeded"
	At       time.Time // registry clock time of the change
}

// listener is one OnStateChange registration.
type listener struct {
	f         func(Transition)
	cancelled atomic.Bool
}

// notifier delivers transitions to listeners in the order they happened, on a
// goroutine of its own: the goroutine that changed the state (a caller, or the
// metrics roll) only appends to a queue. The delivery goroutine is started
// when the queue becomes non-empty and exits when it is drained, so an idle
// registry owns no goroutine.
type notifier struct {
	logger    *slog.Logger
	listeners atomic.Pointer[[]*listener] // copy-on-write
	mu        sync.Mutex                  // guards queue, running, and listener writes
	queue     []Transition
	running   bool
}

// subscribe registers f; the returned func unregisters it (idempotent).
func (n *notifier) subscribe(f func(Transition)) (cancel func()) {
	l := &listener{f: f}
	n.mu.Lock()
	defer n.mu.Unlock()
	old := n.current()
	next := make([]*listener, 0, len(old)+1)
	next = append(append(next, old...), l)
	n.listeners.Store(&next)
	return func() {
		l.cancelled.Store(true)
		n.mu.Lock()
		defer n.mu.Unlock()
		old := n.current()
		next := make([]*listener, 0, len(old))
		for _, o := range old {
			if o != l {
				next = append(next, o)
			}
		}
		n.listeners.Store(&next)
	}
}

func (n *notifier) current() []*listener {
	if p := n.listeners.Load(); p != nil {
		return *p
	}
	return nil
}

// emit queues t for the listeners; it never blocks on a listener.
func (n *notifier) emit(t Transition) {
	if len(n.current()) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.queue = append(n.queue, t)
	if !n.running {
		n.running = true
		go n.drain()
	}
}

func (n *notifier) drain() {
	for {
		n.mu.Lock()
		batch := n.queue
		n.queue = nil
		if len(batch) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.mu.Unlock()
		for _, t := range batch {
			for _, l := range n.current() {
				if !l.cancelled.Load() {
					n.call(l.f, t)
				}
			}
		}
	}
}

// call runs one listener; a panicking listener is logged and does not stop delivery.
func (n *notifier) call(f func(Transition), t Transition) {
	defer func() {
		if p := recover(); p != nil {
			logger := n.logger
			if logger == nil { // a notifier made outside NewRegistry
				logger = slog.Default()
			}
			logger.Error("breaker: state change listener panicked", "key", t.Key, "from", t.From, "to", t.To, "panic", p)
		}
	}()
	f(t)
}
