package rx

import (
	"context"
	"sync"

	"github.com/reactivex/rxgo/v2"
)

// Replay records the items of one run of some producer and replays all of them, then the
// same terminal, to every subscriber, early or late: Hystrix's hot observe() and the
// request cache of streaming commands. The producer calls Add for each item (values, then
// at most one error item) and Finish at the end; Observable returns a cold rxgo.Observable
// whose every subscription replays from the first item. The zero Replay is ready to use;
// it is safe for concurrent use.
type Replay struct {
	mu   sync.Mutex
	done bool
	// items only grows: a subscriber copies the slice header under the lock and reads the
	// elements unlocked, because elements below its length are never written again.
	items   []rxgo.Item
	changed chan struct{} // made on demand by a waiting subscriber, closed on change
}

// Add records it for every subscriber; an error item ends the replay (as Finish). Items
// added after the end are dropped.
func (r *Replay) Add(it rxgo.Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.items = append(r.items, it)
	r.done = it.Error()
	r.notifyLocked()
}

// Finish ends the replay: subscribers complete after the items recorded so far.
func (r *Replay) Finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	r.notifyLocked()
}

// Items returns the items recorded so far and whether the replay has ended.
func (r *Replay) Items() ([]rxgo.Item, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.items, r.done
}

// Observable returns a cold observable replaying r to each subscriber, with the
// subscriber's context: it ends early when that context does.
func (r *Replay) Observable() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{r.replay})
}

// replay is the producer of one subscription.
func (r *Replay) replay(ctx context.Context, next chan<- rxgo.Item) {
	for sent := 0; ; {
		r.mu.Lock()
		items, done := r.items[sent:], r.done
		var changed chan struct{}
		if len(items) == 0 && !done {
			if r.changed == nil {
				r.changed = make(chan struct{})
			}
			changed = r.changed
		}
		r.mu.Unlock()

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

func (r *Replay) notifyLocked() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}
