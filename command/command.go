package command

import (
	"context"
	"errors"
	"iter"

	"github.com/reactivex/rxgo/v2"

	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/rx"
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

	out   T // what the first attempt's run returned (result)
	value T // what the caller gets: the run's or the fallback's value
	// fut is the outcome for the doors that do not wait: Queue returns it, Observe its hot
	// observable (a subscription once the outcome is known, at once under SEMAPHORE
	// isolation, gets a channel already holding the item, with no goroutine), and
	// request-cache hits wait on it. A field, so those doors allocate nothing more for it.
	fut rx.Future[T]
}

// New returns a command of the key s names, running run. The key's state is resolved on
// its first use (Define does it at once and returns the error of an invalid Setter;
// here, an invalid one fails every execution with a BAD_REQUEST_EXCEPTION). run gets a
// context that carries the caller's values; see the package documentation for when it ends.
// Each call compares s with the key's first Setter, entry by entry (a difference is logged
// once): for a key called on every request, Define it once and use its Kind.
func New[T any](s Setter, run func(ctx context.Context) (T, error)) *Command[T] {
	rt := s.normalize()
	return newCommand(rt.state(&s, false), run)
}

func newCommand[T any](ks *keyState, run func(ctx context.Context) (T, error)) *Command[T] {
	c := &Command[T]{run: run}
	c.ks, c.body, c.first.x = ks, c, &c.execution
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
// the execution. ToObservable finds the request context in the subscription's context:
// subscribe with Observe(rxgo.WithContext(ctx)).
func (c *Command[T]) WithCacheKey(key string) *Command[T] {
	c.rareFields().cacheKey = key
	return c
}

// errNilRun is the cause of the BAD_REQUEST_EXCEPTION of a command made with a nil run.
var errNilRun = errors.New("command: nil run function")

// Execute runs the command and waits for its value or error (Hystrix's execute()).
// With SEMAPHORE isolation everything runs on the calling goroutine.
func (c *Command[T]) Execute(ctx context.Context) (T, error) {
	if err := c.claim(doorOther); err != nil {
		var zero T
		return zero, err
	}
	if err := c.begin(ctx); err != nil {
		var zero T
		return zero, err
	}
	return c.outcome(c.drive())
}

// Queue runs the command before it returns under SEMAPHORE (or ADAPTIVE) isolation, on
// the caller's goroutine, as Hystrix's queue() does, and returns the future of its
// outcome, then complete. Under THREAD isolation it returns once the pool took the run,
// and for a key whose chain waits (a retry's backoff, hedges, a rate-limit wait, an
// adaptive queue) once the first wait begins. A failure known before Queue returns that
// is not an execution error (a short circuit, a rejection or a bad request without a
// fallback that recovers it) is also Queue's error, as Hystrix's queue() throws it;
// execution errors (COMMAND_EXCEPTION, TIMEOUT) come from Get. A
// command already executed gets a future of the BAD_REQUEST_EXCEPTION, and that error.
//
// Future.Cancel gives the command up: it ends CANCELLED, and the run's context is
// cancelled only with execution.isolation.thread.interruptOnFutureCancel (else the run
// goes on unobserved, still bounded by its timeout).
func (c *Command[T]) Queue(ctx context.Context) (*observable.Future[T], error) {
	if err := c.claim(doorOther); err != nil {
		fut := &rx.Future[T]{}
		var zero T
		fut.Complete(zero, err)
		return (*observable.Future[T])(fut), err
	}
	fut := (*observable.Future[T])(c.start(ctx))
	if !fut.Ready() {
		return fut, nil
	}
	if _, err := fut.Get(ctx); err != nil && queueThrows(err) {
		return fut, err
	}
	return fut, nil
}

// queueThrows reports whether Queue returns err, known before it returns, as its own:
// every error but an execution error (COMMAND_EXCEPTION, TIMEOUT), as Hystrix's queue().
func queueThrows(err error) bool {
	var re *Error
	return errors.As(err, &re) && re.Type != CommandException && re.Type != Timeout
}

// Observe runs the command before it returns under SEMAPHORE (or ADAPTIVE) isolation, on
// the caller's goroutine, as Hystrix's observe() does, and returns a hot observable that
// replays its outcome to every subscriber, early or late. Under THREAD isolation, and for
// a key whose chain waits, it returns as Queue does. The command starts with the caller's
// context (request cache, request log and context values work) and is cancelled when ctx
// ends before its outcome, not when subscribers leave. Calling Observe again returns the
// same observable; after another door executed the command, Observe returns an observable
// of the BAD_REQUEST_EXCEPTION.
func (c *Command[T]) Observe(ctx context.Context) rxgo.Observable {
	err := c.claim(doorObserve)
	switch {
	case err == nil:
		return c.start(ctx).Observable()
	case c.door.Load() == doorObserve:
		return c.fut.Observable()
	}
	return rx.Error(err)
}

// ToObservable returns a cold observable: each subscription executes the command with
// the subscription's context (so only the first succeeds, and a later one, as through an
// operator that subscribes twice, gets the BAD_REQUEST_EXCEPTION; a command is single
// use) and emits its value or its error. Ending the subscription's context cancels the
// execution. A subscription returns at once and executes the command on a goroutine of
// its own (an operator's, Map and the like, on an RxGo producer goroutine). With a cache
// key, subscribe with the request's context, Observe(rxgo.WithContext(ctx)) with ctx from
// cache.NewRequestContext; without it the command fails with ErrNoRequestContext
// (BAD_REQUEST_EXCEPTION).
func (c *Command[T]) ToObservable() rxgo.Observable { return rx.View((*cold[T])(c)) }

// cold is the Source of a command's cold observable (ToObservable): the command under
// another method set, so that the observable costs no allocation.
type cold[T any] Command[T]

// Observe subscribes. With no option the command executes on a goroutine of its own with
// context.Background, and the subscriber gets a channel with room for the outcome, so
// that the goroutine never waits for it. Options (rxgo.WithContext and the others) are
// RxGo's to read, so with any the subscription goes through Rx.
func (c *cold[T]) Observe(opts ...rxgo.Option) <-chan rxgo.Item {
	if len(opts) > 0 { // the options go into the Defer: its Observe copies nothing then
		return rxgo.Defer([]rxgo.Producer{c.subscribed}, opts...).Observe()
	}
	ch := make(chan rxgo.Item, 1)
	go c.produce(context.Background(), ch)
	return ch
}

// produce executes the command for a subscription made by Observe and leaves the outcome
// in ch.
func (c *cold[T]) produce(ctx context.Context, ch chan<- rxgo.Item) {
	defer close(ch)
	v, err := (*Command[T])(c).Execute(ctx)
	rx.Send(ch, v, err)
}

// Rx returns the rxgo observable the operators apply to: each subscription executes the
// command on its producer goroutine.
func (c *cold[T]) Rx() rxgo.Observable {
	return rxgo.Defer([]rxgo.Producer{c.subscribed})
}

// subscribed is Rx's producer: it executes the command on the subscription's goroutine,
// with the subscription's context, and sends the outcome.
func (c *cold[T]) subscribed(ctx context.Context, next chan<- rxgo.Item) {
	growStack()
	v, err := (*Command[T])(c).Execute(ctx)
	rx.Emit(ctx, next, v, err)
}

// Values returns the command's outcome as a sequence of one (value, error) pair; ranging
// over it executes the command with ctx.
func (c *Command[T]) Values(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) { yield(c.Execute(ctx)) }
}

// start begins a claimed asynchronous execution for Queue and Observe; the future
// completes when the chain decides.
func (c *Command[T]) start(ctx context.Context) *rx.Future[T] {
	f := &c.fut
	f.SetCanceler((*canceler)(&c.execution))
	if err := c.begin(ctx); err != nil {
		var zero T
		f.Complete(zero, err)
		return f
	}
	c.driveAsync()
	return f
}

// begin is execution.begin with the checks of the Command's own fields.
func (c *Command[T]) begin(ctx context.Context) error {
	if c.run == nil {
		return c.badRequest(errNilRun)
	}
	return c.execution.begin(ctx)
}

// outcome returns what the caller gets for the final verdict v.
func (c *Command[T]) outcome(v verdict) (T, error) {
	if v.kind.gaveValue() {
		return c.value, c.err // a business error classified as success comes with its value
	}
	var zero T
	return zero, c.err
}

// The body of the chain (execution.go).

// result returns where attempt a's run keeps its result: the Command's own for the first
// attempt, one of a's own for the others (a late run of an attempt that lost its race
// must not overwrite the value of the one that won).
func (c *Command[T]) result(a *attempt) *T {
	if a == &c.first {
		return &c.out
	}
	if a.out == nil {
		a.out = new(T)
	}
	return a.out.(*T)
}

func (c *Command[T]) call(a *attempt) (err error) {
	out := c.result(a)
	*out, err = c.run(a.ctx())
	return err
}

func (c *Command[T]) failure(a *attempt, err error) kind { return trackedFailure(a, err) }

func (c *Command[T]) won(a *attempt) { c.value = *c.result(a) }

func (c *Command[T]) emitted(a *attempt) {
	x, h := a.x, a.x.hook
	if hooks.IgnoresEmits(h) {
		return
	}
	v := any(c.value)
	x.ks.rt.safeHook(func() {
		h.OnExecutionEmit(a.ctx(), x.ks.info, v)
		h.OnEmit(a.ctx(), x.ks.info, v)
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
	if h := x.hook; h != nil && !hooks.IgnoresEmits(h) {
		x.ks.rt.safeHook(func() {
			h.OnFallbackEmit(x.parent, x.ks.info, v)
			h.OnEmit(x.parent, x.ks.info, v)
		})
	}
	return nil
}

func (c *Command[T]) settled(_ *execution, v verdict) { c.fut.Complete(c.outcome(v)) }

func (c *Command[T]) done() <-chan struct{} { return c.fut.Done() }

func (c *Command[T]) replays(other body) bool {
	_, ok := other.(*Command[T])
	return ok
}

func (c *Command[T]) replay(_ *execution, orig *execution) {
	c.value = orig.body.(*Command[T]).value
}

func (c *Command[T]) streams() bool { return false }
