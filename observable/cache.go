package observable

import (
	"context"
	"fmt"
	"sync"

	"github.com/reactivex/rxgo/v2"
)

// errAbandoned is the terminal a Cache replays after every subscriber left before the
// source terminated and the source was cancelled.
var errAbandoned = fmt.Errorf("observable: cached source cancelled after all subscribers left: %w", context.Canceled)

// Cache returns an observable that runs src at most once and replays it: every
// subscriber, concurrent or later, gets all of src's items in order and then the same
// terminal (completion or error item). It is the core of the request cache.
//
// The first subscription starts src on a goroutine of its own, with a context that keeps
// the first subscriber's values but not its cancellation (context.WithoutCancel), so one
// subscriber leaving does not cancel the run for the others. Like Hystrix's cached
// observable the run is reference counted: when the last current subscriber leaves before
// src terminated, src is cancelled (no goroutine outlives every subscription) and the
// cache terminates with an error item that wraps context.Canceled; later subscribers
// replay the items seen so far and that error. src is never run a second time.
func Cache(src rxgo.Observable) rxgo.Observable {
	c := &cache{src: src}
	return rxgo.Defer([]rxgo.Producer{c.replay})
}

// cache is the shared state of one Cache observable. items only grows: elements below
// len are never written again, so a subscriber may read a copied slice header unlocked.
type cache struct {
	src rxgo.Observable

	mu      sync.Mutex
	started bool
	done    bool          // items holds everything src will ever contribute
	items   []rxgo.Item   // values, then at most one error item
	changed chan struct{} // made on demand by a waiting subscriber, closed on change
	subs    int           // current subscribers
	cancel  context.CancelFunc
}

// replay is the producer of one subscription.
func (c *cache) replay(ctx context.Context, next chan<- rxgo.Item) {
	c.join(ctx)
	defer c.leave()
	for sent := 0; ; {
		c.mu.Lock()
		items, done := c.items[sent:], c.done
		var changed chan struct{}
		if len(items) == 0 && !done {
			if c.changed == nil {
				c.changed = make(chan struct{})
			}
			changed = c.changed
		}
		c.mu.Unlock()

		for _, it := range items {
			if !it.SendContext(ctx, next) {
				return
			}
		}
		sent += len(items)
		switch {
		case len(items) > 0:
		case done:
			return
		default:
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}
}

// join counts a subscriber and starts the run on the first one.
func (c *cache) join(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs++
	if c.started {
		return
	}
	c.started = true
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel = cancel
	go c.run(runCtx)
}

// leave uncounts a subscriber and cancels an unfinished run nobody watches any more.
func (c *cache) leave() {
	c.mu.Lock()
	c.subs--
	abandon := c.subs == 0 && !c.done
	if abandon {
		c.items = append(c.items, rxgo.Error(errAbandoned))
		c.finishLocked()
	}
	c.mu.Unlock()
	if abandon {
		c.cancel()
	}
}

// run observes src once and records what it emits.
func (c *cache) run(ctx context.Context) {
	defer c.cancel()
	for it := range c.src.Observe(rxgo.WithContext(ctx)) {
		if !c.record(it) {
			return
		}
	}
	c.mu.Lock()
	c.finishLocked()
	c.mu.Unlock()
}

// record appends it unless the cache is done; it reports whether to keep reading.
func (c *cache) record(it rxgo.Item) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return false
	}
	c.items = append(c.items, it)
	if it.Error() {
		c.finishLocked()
		return false
	}
	c.notifyLocked()
	return true
}

func (c *cache) finishLocked() {
	c.done = true
	c.notifyLocked()
}

func (c *cache) notifyLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}
