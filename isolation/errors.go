package isolation

import (
	"errors"
	"fmt"
)

// ErrRejected is matched (errors.Is) by every error a Pool returns from SubmitTask: the task was
// not accepted and will not run. The command maps it to THREAD_POOL_REJECTED.
var ErrRejected = errors.New("isolation: rejected")

// ErrClosed is matched (errors.Is) by the rejection of a SubmitTask to a closed Pool and by
// PoolRegistry.Get after the registry was closed.
var ErrClosed = errors.New("isolation: closed")

// RejectedError is the error SubmitTask returns. It names the pool and the reason, and matches
// ErrRejected (and ErrClosed when the pool was closed) with errors.Is. A pool builds its
// rejection errors once, so rejecting does not allocate.
type RejectedError struct {
	// Pool is the thread-pool key.
	Pool string
	// Reason says which limit refused the task.
	Reason string
	closed bool
}

// Error returns a message naming the pool and the reason.
func (e *RejectedError) Error() string {
	return fmt.Sprintf("isolation: thread pool %q rejected the task: %s", e.Pool, e.Reason)
}

// Is reports whether target is ErrRejected, or ErrClosed for a closed pool.
func (e *RejectedError) Is(target error) bool {
	return target == ErrRejected || (e.closed && target == ErrClosed)
}

// rejections holds a pool's prebuilt rejection errors.
type rejections struct {
	full, threshold, closed error
}

func newRejections(pool string, queued bool) rejections {
	full := "no free worker and the pool is at its maximum size (no queue)"
	if queued {
		full = "all workers busy and the queue is full"
	}
	return rejections{
		full:      &RejectedError{Pool: pool, Reason: full},
		threshold: &RejectedError{Pool: pool, Reason: "queue size at queueSizeRejectionThreshold"},
		closed:    &RejectedError{Pool: pool, Reason: "pool closed", closed: true},
	}
}
