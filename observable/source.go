package observable

import "context"

// Source yields a channel of items for one subscriber; the channel closes when ctx ends.
// Bus.Subscribe is a Source, and so is any func with this shape.
type Source[T any] func(ctx context.Context) <-chan T
