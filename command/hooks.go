package command

// safeHook calls a plugin method that cannot fail the command, recovering and logging a
// panic: a faulty plugin must not change the outcome (onStart and the execution-start
// hooks go through hookErr instead).
func (r *Runtime) safeHook(f func()) {
	defer func() {
		if p := recover(); p != nil {
			r.logger.Error("command: execution hook or event notifier panicked", "panic", p)
		}
	}()
	f()
}

// hookErr calls a plugin method that may fail the command; a panic becomes a *PanicError.
func (r *Runtime) hookErr(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = newPanicError(p)
		}
	}()
	return f()
}
