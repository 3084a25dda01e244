package isolation

import (
	"errors"
	"fmt"
)

// ErrRejected is matched (errors.Is) by the cause of every REJECTED_THREAD_EXECUTION: the
// key's goroutine pool did not accept the run, which did not start. The command's error
// matches command.ErrThreadPoolFull as well; the cause a fallback is called with, and
// Command.FailedExecutionError, match ErrRejected only.
var ErrRejected = errors.New("isolation: rejected")

// RejectedError is the cause of a REJECTED_THREAD_EXECUTION. It names the pool and the
// reason, and matches ErrRejected with errors.Is. A pool builds its rejection errors once,
// so rejecting does not allocate.
type RejectedError struct {
	// Pool is the thread-pool key.
	Pool string
	// Reason says which limit refused the task.
	Reason string
}

// Error returns a message naming the pool and the reason.
func (e *RejectedError) Error() string {
	return fmt.Sprintf("isolation: thread pool %q rejected the task: %s", e.Pool, e.Reason)
}

// Is reports whether target is ErrRejected.
func (e *RejectedError) Is(target error) bool { return target == ErrRejected }
