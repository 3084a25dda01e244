package command

import (
	"log/slog"

	"github.com/rxhystrix/rxhystrix/hooks"
)

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

// startHook calls OnStart with the caller's context; the context it returns becomes the
// execution's parent context (run, fallback and the later hooks see its values).
func (x *exec) startHook(h hooks.ExecutionHook) error {
	return hookErr(func() error {
		ctx, err := h.OnStart(x.parent, x.ks.info)
		if err == nil && ctx != nil {
			x.parent = ctx
		}
		return err
	})
}
