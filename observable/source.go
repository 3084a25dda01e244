package observable

import "context"

// Source yields the queue of items for one subscriber, which polls it; the queue is
// closed when ctx ends (or earlier, when the source has nothing more to give).
// Bus.Subscribe is a Source, and so is any func with this shape.
type Source[T any] func(ctx context.Context) *Queue[T]
