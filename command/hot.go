package command

import "github.com/rxhystrix/rxhystrix/observable"

// future returns the future of the Command's outcome: Queue returns it, Observe returns
// its hot observable (observable.Future.Observable: once the outcome is known, at once
// under SEMAPHORE isolation, a subscription gets a channel that already holds the item,
// with no goroutine), and request-cache hits wait on it. It is a field of the Command:
// the asynchronous doors allocate nothing more for it.
func (c *Command[T]) future() *observable.Future[T] { return &c.fut }
