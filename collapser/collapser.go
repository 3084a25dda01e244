package collapser

import (
	"context"
	"fmt"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/internal/collapsed"
	"github.com/rxhystrix/rxhystrix/internal/rx"
	"github.com/rxhystrix/rxhystrix/observable"
)

// Command is what a collapser runs for a batch: *command.Command[B] satisfies it, so the
// batch gets the circuit breaker, isolation, timeout, fallback and metrics of a command,
// and records COLLAPSED x the batch size. A type of your own that wraps the command keeps
// that mark if it embeds the *command.Command[B].
type Command[B any] interface {
	Execute(ctx context.Context) (B, error)
}

// Batch defines how a Collapser turns a batch of requests into one command and its
// result back into one response per request (Hystrix's HystrixCollapser methods).
type Batch[A, R, B any] struct {
	// Command returns the command that serves requests (Hystrix's createCommand); it is
	// called once per batch, or once per shard. Required.
	Command func(requests []*Request[A, R]) Command[B]
	// MapResponse gives each request its response from the command's result (Hystrix's
	// mapResponseToRequests) with Request.SetResponse or SetError. A request it leaves
	// unanswered fails with ErrNoResponse; an error it returns fails every request it left
	// unanswered. Required.
	MapResponse func(result B, requests []*Request[A, R]) error
	// Shard splits a batch into groups that each get their own command (Hystrix's
	// shardRequests). Optional: nil means one command per batch. The shards run
	// concurrently.
	Shard func(requests []*Request[A, R]) [][]*Request[A, R]
	// CacheKey returns the request-cache key of an argument. Optional: with it and
	// requestCache.enabled, requests with the same key share one request and one
	// response: within a batch (any scope) and, with a request context, across the
	// batches of that request. Without it every request is sent as it is, duplicates
	// included. A panic in CacheKey fails only the request it was called for: the caller
	// gets an error wrapping ErrBadBatch from whichever door it used, and the request
	// joins no batch.
	CacheKey func(arg A) string
}

// Collapser batches requests of type A into commands of result B and answers each
// request with an R (Hystrix's HystrixCollapser). Create one per collapser key and
// share it: it is safe for concurrent use and holds no goroutine while idle.
type Collapser[A, R, B any] struct {
	c  *core[A, R]
	bd Batch[A, R, B]
}

// New returns a collapser for s. It fails on an empty key, a missing Command or
// MapResponse, or invalid properties in s.Properties.
func New[A, R, B any](s Setter, b Batch[A, R, B]) (*Collapser[A, R, B], error) {
	if b.Command == nil || b.MapResponse == nil {
		return nil, fmt.Errorf("%s: Batch.Command and Batch.MapResponse are required", s.name())
	}
	col := &Collapser[A, R, B]{bd: b}
	c, err := newCore(s, b.CacheKey, col.run)
	if err != nil {
		return nil, err
	}
	col.c = c
	return col, nil
}

// Key returns the collapser key.
func (col *Collapser[A, R, B]) Key() string { return col.c.key }

// Execute adds arg to the current batch and waits for its response. When ctx ends first
// the caller leaves the batch (which goes on for the others) and gets ctx's cause.
func (col *Collapser[A, R, B]) Execute(ctx context.Context, arg A) (R, error) {
	r, err := col.c.submit(ctx, arg)
	if err != nil {
		var zero R
		return zero, err
	}
	return col.wait(ctx, r)
}

// Queue adds arg to the current batch now and returns the future of its response.
// Future.Cancel (or the end of ctx) makes the caller leave the batch.
func (col *Collapser[A, R, B]) Queue(ctx context.Context, arg A) *observable.Future[R] {
	r, err := col.c.submit(ctx, arg)
	return (*observable.Future[R])(rx.ToFuture[R](ctx, rx.Defer(func(sub context.Context) (R, error) {
		if err != nil {
			var zero R
			return zero, err
		}
		return col.wait(sub, r)
	})))
}

// Observe adds arg to the current batch now and returns a hot observable that replays
// the response (or error) to every subscriber. The request stays in the batch while ctx
// lives.
func (col *Collapser[A, R, B]) Observe(ctx context.Context, arg A) rxgo.Observable {
	f := col.Queue(ctx, arg)
	return rx.Defer(func(sub context.Context) (R, error) { return f.Get(sub) })
}

// ToObservable returns a cold observable: each subscription adds arg to the batch
// current at that moment, with the subscription's context (which also decides the
// request context of RequestScope), and emits the response or the error.
func (col *Collapser[A, R, B]) ToObservable(arg A) rxgo.Observable {
	return rx.Defer(func(ctx context.Context) (R, error) { return col.Execute(ctx, arg) })
}

func (col *Collapser[A, R, B]) wait(ctx context.Context, r *Request[A, R]) (R, error) {
	if err := col.c.await(ctx, r); err != nil {
		var zero R
		return zero, err
	}
	return r.result()
}

// run executes a fired batch: one command per shard.
func (col *Collapser[A, R, B]) run(ctx context.Context, reqs []*Request[A, R]) {
	runSharded(ctx, col.c.key, reqs, col.bd.Shard, col.execShard)
}

func (col *Collapser[A, R, B]) execShard(ctx context.Context, reqs []*Request[A, R]) error {
	cmd := col.bd.Command(reqs)
	if cmd == nil {
		return fmt.Errorf("collapser %s: Command returned nil: %w", col.c.key, ErrBadBatch)
	}
	markCollapsed(cmd, len(reqs))
	res, err := cmd.Execute(ctx)
	if err != nil {
		return err
	}
	return col.bd.MapResponse(res, reqs)
}

// markCollapsed marks cmd, a command or a type that embeds one, as the command of a batch
// of n requests (COLLAPSED x n).
func markCollapsed(cmd any, n int) {
	if c, ok := cmd.(interface{ MarkCollapsed(collapsed.Batch) }); ok {
		c.MarkCollapsed(collapsed.Of(n))
	}
}

// Arguments returns the arguments of requests, in order: the usual first step of a
// Batch.Command.
func Arguments[A, R any](requests []*Request[A, R]) []A {
	out := make([]A, len(requests))
	for i, r := range requests {
		out[i] = r.arg
	}
	return out
}
