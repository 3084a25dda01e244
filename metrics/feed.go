package metrics

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"
)

// Feed is a hot observable of the registry's event stream: Completion, HealthSnapshot or
// CountSnapshot items (values, never errors), from the moment a subscription starts
// until the subscriber's context ends or the registry closes; then it completes. It is a
// genuine rxgo.Observable: every RxGo operator applies. Each subscription has a buffer of
// its own (WithFeedBuffer); a publisher never waits for it, and an item it had no room
// for is counted as missed. Subscribe with rxgo.WithContext and a context that ends: a
// subscription holds a goroutine until then (or until Close).
type Feed struct {
	rxgo.Observable
	misses counters // striped like a key's counters: sum[0] counts the misses
}

// Missed returns how many items the Feed's subscriptions, all of them together, did not
// deliver: those offered while the buffer was full, and those left in the buffer when a
// subscription ended. Once publishers and subscriptions are done, the items the
// subscribers received plus Missed are every item offered to them.
func (f *Feed) Missed() int64 { return int64(f.misses.loadSum(0)) }

// miss counts one missed item on stripe i (any number: it is masked) of the misses of a
// Feed, whose stripes its subscriptions share.
func (c *counters) miss(i uint32) { c.stripes[i&c.mask].sum[0].Add(1) }

// FeedOption configures a Feed.
type FeedOption func(*feedOptions)

type feedOptions struct {
	key    string
	buffer int
}

// defaultFeedBuffer is a subscription's buffer unless WithFeedBuffer says otherwise.
const defaultFeedBuffer = 256

// ForKey makes a Feed follow one command key (default: every key), through evictions.
func ForKey(key string) FeedOption { return func(o *feedOptions) { o.key = key } }

// WithFeedBuffer sets how many items each subscription holds for a subscriber that is
// busy (default 256, at least 1).
func WithFeedBuffer(n int) FeedOption { return func(o *feedOptions) { o.buffer = max(n, 1) } }

// Completions returns a Feed of Completion items: one per MarkComplete of the keys it
// follows, sent on the goroutine that called MarkComplete.
func (r *Registry) Completions(opts ...FeedOption) *Feed {
	return newFeed(r, func(l *feedLists) *[]*subscription[Completion] { return &l.completions }, opts)
}

// HealthSnapshots returns a Feed of HealthSnapshot items: the health counts of the keys it
// follows at each healthSnapshot boundary, as OnHealthCounts delivers them (while the key
// has anything in its windows).
func (r *Registry) HealthSnapshots(opts ...FeedOption) *Feed {
	return newFeed(r, func(l *feedLists) *[]*subscription[HealthSnapshot] { return &l.health }, opts)
}

// CountSnapshots returns a Feed of CountSnapshot items: the rolling and cumulative counts
// of the keys it follows at each rollingStats boundary (while the key has anything in its
// windows).
func (r *Registry) CountSnapshots(opts ...FeedOption) *Feed {
	return newFeed(r, func(l *feedLists) *[]*subscription[CountSnapshot] { return &l.counts }, opts)
}

// newFeed returns a Feed whose every subscription registers a subscription of its own in
// the list that list picks.
func newFeed[T any](r *Registry, list func(*feedLists) *[]*subscription[T], opts []FeedOption) *Feed {
	o := feedOptions{buffer: defaultFeedBuffer}
	for _, opt := range opts {
		opt(&o)
	}
	f := &Feed{misses: newCounters()}
	f.Observable = rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		s := &subscription[T]{key: o.key, buf: make(chan T, o.buffer), misses: f.misses}
		closed := r.feed.register(func(l *feedLists) { *list(l) = append(*list(l), s) })
		if closed == nil {
			return // the registry is closed: complete at once
		}
		defer r.feed.live.Done()
		s.deliver(ctx, next, closed)
		r.feed.unregister(func(l *feedLists) {
			*list(l) = slices.DeleteFunc(*list(l), func(x *subscription[T]) bool { return x == s })
		})
		s.end()
	}})
	return f
}

// feeds is the registry's side of its Feeds: the subscriptions publishers offer to.
type feeds struct {
	_    [64]byte                  // off the cache lines of the registry's locks
	subs atomic.Pointer[feedLists] // read by every MarkComplete; nil when nobody subscribes
	_    [56]byte

	mu     sync.Mutex // guards what follows and every change of subs
	closed bool
	done   chan struct{}  // closed by Close; made with the first subscription
	live   sync.WaitGroup // running producers
}

// feedLists are the subscriptions of each kind, immutable once published.
type feedLists struct {
	completions []*subscription[Completion]
	health      []*subscription[HealthSnapshot]
	counts      []*subscription[CountSnapshot]
}

// register publishes the lists with s added by add and counts one more running producer;
// it returns the channel Close closes, or nil (and changes nothing) once closed.
func (f *feeds) register(add func(*feedLists)) <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.edit(add)
	if f.done == nil {
		f.done = make(chan struct{})
	}
	f.live.Add(1)
	return f.done
}

// unregister publishes the lists with a subscription taken out by remove.
func (f *feeds) unregister(remove func(*feedLists)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.edit(remove)
}

// edit publishes an edited copy of the lists, nil when they are empty (mu held).
func (f *feeds) edit(edit func(*feedLists)) {
	var next feedLists
	if cur := f.subs.Load(); cur != nil {
		next = feedLists{slices.Clone(cur.completions), slices.Clone(cur.health), slices.Clone(cur.counts)}
	}
	edit(&next)
	if len(next.completions)+len(next.health)+len(next.counts) == 0 {
		f.subs.Store(nil)
		return
	}
	f.subs.Store(&next)
}

// close ends every subscription and waits for their producers to return.
func (f *feeds) close() {
	f.mu.Lock()
	if !f.closed && f.done != nil {
		close(f.done)
	}
	f.closed = true
	f.mu.Unlock()
	f.live.Wait()
}
