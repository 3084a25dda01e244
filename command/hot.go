package command

import "github.com/rxhystrix/rxhystrix/observable"

// future returns the future of the Command's outcome, made on first use: Queue returns it,
// Observe returns its hot observable (observable.Future.Observable: once the outcome is
// known, at once under SEMAPHORE isolation, a subscription gets a channel that already
// holds the item, with no goroutine), and request-cache hits wait on it. Execute does
// without, so a Command that only executes makes none.
func (c *Command[T]) future() *observable.Future[T] {
	if f := c.doors.Load(); f != nil {
		return f
	}
	f := &observable.Future[T]{}
	f.SetCanceler((*canceler)(&c.execution))
	if c.doors.CompareAndSwap(nil, f) {
		return f
	}
	return c.doors.Load()
}
