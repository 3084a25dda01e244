package adaptive

import "errors"

// Why the limit of a key under ADAPTIVE isolation refused an execution: the cause of its
// command.ErrAdaptiveRejected, matched with errors.Is.
var (
	// ErrLimit: the limit was reached (and the key has no queue).
	ErrLimit = errors.New("adaptive: concurrency limit reached")
	// ErrQueueFull: the limit was reached and the queue was full, or a call of a higher
	// criticality pushed this one out of the queue.
	ErrQueueFull = errors.New("adaptive: concurrency limit reached and queue full")
	// ErrCriticality: the calls in flight used the share of the limit open to this
	// call's criticality (the rest is reserved for higher levels).
	ErrCriticality = errors.New("adaptive: concurrency limit reserved for higher criticality")
	// ErrQueueTimeout: the call waited in the queue as long as its caller allows (the
	// execution timeout).
	ErrQueueTimeout = errors.New("adaptive: concurrency limit reached and no permit within the wait allowed")
)
