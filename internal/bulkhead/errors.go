package bulkhead

import (
	"errors"

	"github.com/rxhystrix/rxhystrix/isolation"
)

// ErrClosed is matched (errors.Is) by the rejection of a SubmitTask to a closed Pool and by
// PoolRegistry.Get after the registry was closed.
var ErrClosed = errors.New("isolation: closed")

// closedError is the rejection of a closed pool: the pool's *isolation.RejectedError
// (Unwrap, so errors.Is(err, isolation.ErrRejected) and errors.As hold), matching ErrClosed
// too.
type closedError struct{ *isolation.RejectedError }

func (e closedError) Unwrap() error { return e.RejectedError }

func (e closedError) Is(target error) bool { return target == ErrClosed }

// rejections holds a pool's prebuilt rejection errors: each an *isolation.RejectedError
// (the closed one wrapped in a closedError), so rejecting does not allocate.
type rejections struct {
	full, threshold, closed error
}

func newRejections(pool string, queued bool) rejections {
	full := "no free worker and the pool is at its maximum size (no queue)"
	if queued {
		full = "all workers busy and the queue is full"
	}
	return rejections{
		full:      &isolation.RejectedError{Pool: pool, Reason: full},
		threshold: &isolation.RejectedError{Pool: pool, Reason: "queue size at queueSizeRejectionThreshold"},
		closed:    closedError{&isolation.RejectedError{Pool: pool, Reason: "pool closed"}},
	}
}
