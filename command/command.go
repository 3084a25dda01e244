package command

import (
	"context"
	"errors"
	"iter"
	"sync/atomic"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/observable"
)

// Command is one execution of a call to a dependency (Hystrix's HystrixCommand): run
// produces one value or an error, and the optional fallback recovers from failures,
// timeouts, rejections and short-circuits. A Command is single use: create a new one per
// call (New costs one allocation and one lock-free lookup of the key's state).
//
// Execute, Queue, Observe, ToObservable and Values are front doors to the same chain
// (see the package documentation); the accessors (ExecutionEvents, IsResponseTimedOut,
// ...) describe the execution.
type Command[T any] struct {
	execution
	run      func(ctx context.Context) (T, error)
	fallback func(ctx context.Context, err error) (T, error)

	out   T                           // what run returned; kept by won if the run won the race
	value T                           // what the caller gets: the run's or the fallback's value
	doors atomic.Pointer[outcomes[T]] // made by Queue, Observe or a request-cache slot
}

// outcomes is what the front doors that do not wait, and request-cache hits, read the
// outcome from: Queue's future (also Observe's source and the hits' wait) and Observe's
// observable. Execute does without, so a Command that only executes is smaller.
type outcomes[T any] struct {
	fut observable.Future[T]
	hot hot[T]
}

// outcomes returns the Command's outcomes, making them on first use.
func (c *Command[T]) outcomes() *outcomes[T] {
	if o := c.doors.Load(); o != nil {
		return o
	}
	o := &outcomes[T]{}
	o.fut.SetCanceler((*canceler)(&c.execution))
	if c.doors.CompareAndSwap(nil, o) {
		return o
	}
	return c.doors.Load()
}

// New returns a command of the key s names, running run. The key's state is resolved on
// its first use (Define does it at once and returns the error of an invalid Setter;
// here, an invalid one fails every execution with a BAD_REQUEST_EXCEPTION). run gets a
// context that carries the caller's values; see the package documentation for when it ends.
func New[T any](s Setter, run func(ctx context.Context) (T, error)) *Command[T] {
	rt := s.normalize()
	return newCommand(rt.state(&s, false), run)
}

func newCommand[T any](ks *keyState, run func(ctx context.Context) (T, error)) *Command[T] {
	c := &Command[T]{run: run}
	c.ks, c.body = ks, c
	return c
}

// WithFallback sets the fallback, called with the error that caused it (the run's error,
// ErrTimeout, ErrShortCircuited, ErrSemaphoreRejected or the pool's rejection) and the
// caller's context. Call it before the execution.
func (c *Command[T]) WithFallback(f func(ctx context.Context, err error) (T, error)) *Command[T] {
	c.fallback = f
	return c
}

// WithCacheKey sets the request-cache key: with requestCache.enabled, commands of the
// same key and cache key in one request context share one execution. Call it before
// the execution.
func (c *Command[T]) WithCacheKey(key string) *Command[T] {
	c.rareFields().cacheKey = key
	return c
}

// errNilRun is the cause of the BAD_REQUEST_EXCEPTION of a command made with a nil run.
var errNilRun = errors.New("command: nil run function")

// Execute runs the command and waits for its value or error (Hystrix's execute()).
// With SEMAPHORE isolation everything runs on the calling goroutine.
func (c *Command[T]) Execute(ctx context.Context) (T, error) {
	x := &c.execution
	if err := c.begin(ctx, false); err != nil {
		var zero T
		return zero, err
	}
	v := x.chain.run(x, pending)
	if v == suspended {
		v = x.await()
	}
	return c.outcome(v)
}

// Queue starts the command and returns the future of its outcome (Hystrix's queue()).
// Under SEMAPHORE isolation the command runs before Queue returns and the future is
// complete; under THREAD isolation it is queued on the pool. A failure known before
// Queue returns that is not an execution error (a short circuit, a rejection or a bad
// request without a fallback that recovers it) is also Queue's error, as Hystrix's
// queue() throws it; execution errors (COMMAND_EXCEPTION, TIMEOUT) come from Get.
//
// Future.Cancel gives the command up: it ends CANCELLED, and the run's context is
// cancelled only with execution.isolation.thread.interruptOnFutureCancel (else the run
// goes on unobserved, still bounded by its timeout).
func (c *Command[T]) Queue(ctx context.Context) (*observable.Future[T], error) {
	fut := &c.start(ctx).fut
	if !fut.Ready() {
		return fut, nil
	}
	_, err := fut.Get(ctx)
	var re *Error
	if errors.As(err, &re) && re.Type != CommandException && re.Type != Timeout {
		return fut, err
	}
	return fut, nil
}

// Observe starts the command at once, with the caller's context (request cache, request
// log and context values work), and returns a hot observable that replays its outcome
// to every subscriber, early or late. Under SEMAPHORE isolation the command runs during
// the call, on the caller's goroutine, as in Hystrix. The command is cancelled when ctx
// ends before its outcome, not when subscribers leave.
func (c *Command[T]) Observe(ctx context.Context) rxgo.Observable {
	o := c.start(ctx)
	o.hot.init(&o.fut)
	return &o.hot
}

// ToObservable returns a cold observable: each subscription executes the command with
// the subscription's context (so only the first succeeds; a command is single use) and
// emits its value or its error. Ending the subscription's context cancels the execution.
func (c *Command[T]) ToObservable() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{func(ctx context.Context, next chan<- rxgo.Item) {
		sendOutcome(ctx, next, c.Execute)
	}})
}

// Values returns the command's outcome as a sequence of one (value, error) pair; ranging
// over it executes the command with ctx.
func (c *Command[T]) Values(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) { yield(c.Execute(ctx)) }
}

// start begins an asynchronous execution for Queue and Observe: the chain runs until it
// decides or suspends, and the future completes when it decides.
func (c *Command[T]) start(ctx context.Context) *outcomes[T] {
	x := &c.execution
	o := c.outcomes()
	if err := c.begin(ctx, true); err != nil {
		var zero T
		o.fut.Complete(zero, err)
		return o
	}
	if v := x.chain.run(x, pending); v != suspended {
		c.settled(x, v)
	}
	return o
}

// begin is execution.begin with the checks of the Command's own fields.
func (c *Command[T]) begin(ctx context.Context, async bool) error {
	if c.run == nil {
		return c.badRequest(errNilRun)
	}
	return c.execution.begin(ctx, async)
}

// outcome returns what the caller gets for the final verdict v.
func (c *Command[T]) outcome(v verdict) (T, error) {
	if v.gaveValue() {
		return c.value, c.err // a business error classified as success comes with its value
	}
	var zero T
	return zero, c.err
}

// sendOutcome calls f with the subscription's context and sends its value or error.
func sendOutcome[T any](ctx context.Context, next chan<- rxgo.Item, f func(context.Context) (T, error)) {
	item(f(ctx)).SendContext(ctx, next)
}

// The body of the chain (execution.go).

func (c *Command[T]) call(x *execution) (err error) {
	c.out, err = c.run(x.runCtx())
	return err
}

func (c *Command[T]) won() { c.value = c.out }

func (c *Command[T]) emitted(x *execution) {
	h, v := x.hook, any(c.value)
	x.ks.rt.safeHook(func() {
		h.OnExecutionEmit(x.runCtx(), x.ks.info, v)
		h.OnEmit(x.runCtx(), x.ks.info, v)
	})
}

func (c *Command[T]) hasFallback() bool { return c.fallback != nil }

func (c *Command[T]) callFallback(x *execution, cause error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = newPanicError(p)
		}
	}()
	v, err := c.fallback(x.parent, cause)
	if err != nil {
		return err
	}
	c.value = v
	if h := x.hook; h != nil {
		x.ks.rt.safeHook(func() {
			h.OnFallbackEmit(x.parent, x.ks.info, v)
			h.OnEmit(x.parent, x.ks.info, v)
		})
	}
	return nil
}

func (c *Command[T]) settled(_ *execution, v verdict) { c.outcomes().fut.Complete(c.outcome(v)) }

func (c *Command[T]) done() <-chan struct{} { return c.outcomes().fut.Done() }

func (c *Command[T]) replays(other body) bool {
	_, ok := other.(*Command[T])
	return ok
}

func (c *Command[T]) replay(_ *execution, orig *execution) {
	c.value = orig.body.(*Command[T]).value
}

func (c *Command[T]) streams() bool { return false }
