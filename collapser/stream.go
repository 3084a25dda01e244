package collapser

import (
	"context"
	"fmt"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/internal/rx"
	"github.com/rxhystrix/rxhystrix/observable"
)

// StreamCommand is what a StreamCollapser runs for a batch: *command.Stream satisfies it.
type StreamCommand interface {
	ToObservable() rxgo.Observable
}

// StreamBatch defines how a StreamCollapser turns a batch into one streaming command and
// matches the items it emits to the requests by key (Hystrix's HystrixObservableCollapser).
type StreamBatch[A, R, I any, K comparable] struct {
	// Command returns the streaming command that serves requests, one per argument key
	// (requests with equal ArgKey share the items of the first); its observable must emit
	// items of type I. Required.
	Command func(requests []*Request[A, R]) StreamCommand
	// ArgKey returns the key of a request's argument. Required.
	ArgKey func(arg A) K
	// ItemKey returns the key of an emitted item: the item is a response to every request
	// whose ArgKey equals it (none, one or several). Required.
	ItemKey func(item I) K
	// MapItem turns a matched item into a response. Optional when I and R are the same
	// type.
	MapItem func(item I) R
	// OnMissingResponse is called, when the command completed, for each request that no
	// item matched; it may SetResponse or SetError. Optional: nil fails such requests
	// with ErrNoResponse. A request it leaves unset completes with no response.
	OnMissingResponse func(r *Request[A, R])
	// Shard and CacheKey: as in Batch.
	Shard    func(requests []*Request[A, R]) [][]*Request[A, R]
	CacheKey func(arg A) string
}

// StreamCollapser batches requests into streaming commands and gives each request every
// item whose key matches its argument's key, then completion (Hystrix's
// HystrixObservableCollapser). It is safe for concurrent use.
type StreamCollapser[A, R, I any, K comparable] struct {
	c  *core[A, R]
	bd StreamBatch[A, R, I, K]
}

// NewStream returns a streaming collapser for s. It fails on an empty key, a missing
// Command, ArgKey or ItemKey, or invalid properties in s.Properties.
func NewStream[A, R, I any, K comparable](s Setter, b StreamBatch[A, R, I, K]) (*StreamCollapser[A, R, I, K], error) {
	if b.Command == nil || b.ArgKey == nil || b.ItemKey == nil {
		return nil, fmt.Errorf("%s: StreamBatch.Command, ArgKey and ItemKey are required", s.name())
	}
	sc := &StreamCollapser[A, R, I, K]{bd: b}
	c, err := newCore(s, b.CacheKey, sc.run)
	if err != nil {
		return nil, err
	}
	sc.c = c
	return sc, nil
}

// Key returns the collapser key.
func (sc *StreamCollapser[A, R, I, K]) Key() string { return sc.c.key }

// Execute adds arg to the current batch and waits until its responses are complete. On
// an error it returns the responses received before it. When ctx ends first the caller
// leaves the batch and gets ctx's cause.
func (sc *StreamCollapser[A, R, I, K]) Execute(ctx context.Context, arg A) ([]R, error) {
	r, err := sc.c.submit(ctx, arg)
	if err != nil {
		return nil, err
	}
	return sc.collect(ctx, r)
}

// Queue adds arg to the current batch now and returns the future of all its responses.
// Future.Cancel (or the end of ctx) makes the caller leave the batch.
func (sc *StreamCollapser[A, R, I, K]) Queue(ctx context.Context, arg A) *observable.Future[[]R] {
	r, err := sc.c.submit(ctx, arg)
	return (*observable.Future[[]R])(rx.ToFuture[[]R](ctx, rx.Defer(func(sub context.Context) ([]R, error) {
		if err != nil {
			return nil, err
		}
		return sc.collect(sub, r)
	})))
}

// Observe adds arg to the current batch now and returns a hot observable that replays
// every response, then the error if any, to every subscriber. The request stays in the
// batch while ctx lives.
func (sc *StreamCollapser[A, R, I, K]) Observe(ctx context.Context, arg A) rxgo.Observable {
	r, err := sc.c.submit(ctx, arg)
	if err != nil {
		return rx.Error(err)
	}
	rx.ToFuture[[]R](ctx, rx.Defer(func(sub context.Context) ([]R, error) {
		return sc.collect(sub, r)
	}))
	return rxgo.Defer([]rxgo.Producer{func(sub context.Context, next chan<- rxgo.Item) {
		replay(sub, r, next)
	}})
}

// ToObservable returns a cold observable: each subscription adds arg to the batch current
// at that moment, with the subscription's context, and emits its responses as they
// arrive. Ending the subscription makes it leave the batch.
func (sc *StreamCollapser[A, R, I, K]) ToObservable(arg A) rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		r, err := sc.c.submit(ctx, arg)
		if err != nil {
			rxgo.Error(err).SendContext(ctx, next)
			return
		}
		if !replay(ctx, r, next) {
			sc.c.leave(r, context.Cause(ctx))
		}
	}})
}

// collect waits for r to complete and returns its responses and error.
func (sc *StreamCollapser[A, R, I, K]) collect(ctx context.Context, r *Request[A, R]) ([]R, error) {
	if err := sc.c.await(ctx, r); err != nil {
		return nil, err
	}
	vals, err, _, _ := r.since(0)
	return vals, err
}

// replay sends r's responses as they arrive, then its error item if any; it reports
// false when ctx ended first.
func replay[A, R any](ctx context.Context, r *Request[A, R], next chan<- rxgo.Item) bool {
	for sent := 0; ; {
		vals, err, resolved, changed := r.since(sent)
		for _, v := range vals {
			if !rxgo.Of(v).SendContext(ctx, next) {
				return false
			}
		}
		sent += len(vals)
		switch {
		case len(vals) > 0:
		case resolved:
			if err != nil {
				return rxgo.Error(err).SendContext(ctx, next)
			}
			return true
		default:
			select {
			case <-changed:
			case <-ctx.Done():
				return false
			}
		}
	}
}

// run executes a fired batch: one streaming command per shard.
func (sc *StreamCollapser[A, R, I, K]) run(ctx context.Context, reqs []*Request[A, R]) {
	runSharded(ctx, sc.c.key, reqs, sc.bd.Shard, sc.execShard)
}

// execShard runs the command of one shard and routes its items to the requests by key.
// The command gets one request per key: items are matched by key, so a duplicate key
// would be answered twice; every request of the key gets the items.
func (sc *StreamCollapser[A, R, I, K]) execShard(ctx context.Context, reqs []*Request[A, R]) error {
	byKey := make(map[K][]*Request[A, R], len(reqs))
	unique := make([]*Request[A, R], 0, len(reqs))
	for _, r := range reqs {
		k := sc.bd.ArgKey(r.arg)
		if byKey[k] == nil {
			unique = append(unique, r)
		}
		byKey[k] = append(byKey[k], r)
	}
	cmd := sc.bd.Command(unique)
	if cmd == nil {
		return fmt.Errorf("collapser %s: Command returned nil: %w", sc.c.key, ErrBadBatch)
	}
	markCollapsed(cmd, len(unique))
	sub, cancel := context.WithCancel(ctx)
	defer cancel()
	for it := range cmd.ToObservable().Observe(rxgo.WithContext(sub)) {
		if it.Error() {
			return it.E
		}
		item, ok := it.V.(I)
		if !ok {
			return fmt.Errorf("collapser %s: command emitted %T: %w", sc.c.key, it.V, ErrBadBatch)
		}
		resp, err := sc.mapItem(item)
		if err != nil {
			return err
		}
		for _, r := range byKey[sc.bd.ItemKey(item)] {
			r.emit(resp)
		}
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	for _, r := range reqs {
		if !r.responded() {
			sc.missing(r)
		}
		r.complete()
	}
	return nil
}

func (sc *StreamCollapser[A, R, I, K]) mapItem(item I) (R, error) {
	if sc.bd.MapItem != nil {
		return sc.bd.MapItem(item), nil
	}
	resp, ok := any(item).(R)
	if !ok {
		return resp, fmt.Errorf("collapser %s: item %T is no response and MapItem is nil: %w", sc.c.key, item, ErrBadBatch)
	}
	return resp, nil
}

func (sc *StreamCollapser[A, R, I, K]) missing(r *Request[A, R]) {
	if sc.bd.OnMissingResponse != nil {
		sc.bd.OnMissingResponse(r)
		return
	}
	r.SetError(sc.c.noResponse)
}
