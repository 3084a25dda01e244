package command

import "log/slog"

// safeHook calls a hook method, recovering and logging a panic: a faulty plugin must not
// change the outcome of the command (except OnStart and the execution-start hooks, which
// go through hookErr).
func safeHook(f func()) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("command: execution hook panicked", "panic", r)
		}
	}()
	f()
}

// hookErr calls a hook method that may fail the command; a panic becomes a *PanicError.
func hookErr(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError(r)
		}
	}()
	return f()
}
