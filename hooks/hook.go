package hooks

import "context"

// Info identifies the command a hook call is about.
type Info struct {
	CommandKey    string
	GroupKey      string
	ThreadPoolKey string // threadPoolKeyOverride applied
}

// ExecutionHook is called at every step of a command execution, in the order of its
// methods (see the package documentation for the exact sequences). Implementations must
// be safe for concurrent use: many commands call the same hook at once. Embed NoopHook
// to implement only the methods you care about.
//
// Every method gets the execution's context: OnStart gets the caller's, and returns the
// context the rest of the execution uses (the caller's, or a child of it carrying, say, a
// trace span); the run-side methods (OnThreadStart, OnExecutionStart, OnExecutionEmit,
// OnExecutionSuccess, OnExecutionError, OnThreadComplete) get the context run gets, a
// child of that one; every other method gets the one OnStart returned, except OnCacheHit,
// which gets the caller's. So a hook can start a span in OnStart, find it again in every
// later call of the same execution and end it in OnSuccess, OnError or OnUnsubscribe.
//
// A hook that returns an error or panics in OnStart fails the command fast; in
// OnThreadStart or OnExecutionStart it counts as a failure of the run itself, as in
// Hystrix. The other methods have no way to report failure; a panic in them is logged
// and does not change the outcome.
type ExecutionHook interface {
	// OnStart is called before anything else, once the command is not a cache hit. It
	// returns the context for the rest of the execution: ctx itself or a child of it
	// (returning nil means ctx).
	OnStart(ctx context.Context, info Info) (context.Context, error)
	// OnThreadStart is called on the pool goroutine before the run (thread isolation only).
	OnThreadStart(ctx context.Context, info Info) error
	// OnExecutionStart is called just before the user's run or construct function.
	OnExecutionStart(ctx context.Context, info Info) error
	// OnExecutionEmit is called for every value the run produces.
	OnExecutionEmit(ctx context.Context, info Info, value any)
	// OnEmit is called for every value the caller receives, from the run or the fallback.
	OnEmit(ctx context.Context, info Info, value any)
	// OnExecutionSuccess is called when the run completed without error.
	OnExecutionSuccess(ctx context.Context, info Info)
	// OnExecutionError is called when the run failed (not on timeout).
	OnExecutionError(ctx context.Context, info Info, err error)
	// OnThreadComplete is called on the pool goroutine when the run ended (thread isolation only).
	OnThreadComplete(ctx context.Context, info Info)
	// OnFallbackStart is called just before the user's fallback.
	OnFallbackStart(ctx context.Context, info Info)
	// OnFallbackEmit is called for every value the fallback produces.
	OnFallbackEmit(ctx context.Context, info Info, value any)
	// OnFallbackSuccess is called when the fallback completed without error.
	OnFallbackSuccess(ctx context.Context, info Info)
	// OnFallbackError is called when the fallback failed.
	OnFallbackError(ctx context.Context, info Info, err error)
	// OnSuccess is called once when the command completed with a value (from the run or
	// the fallback).
	OnSuccess(ctx context.Context, info Info)
	// OnError is called once when the command failed. err is the command's runtime error;
	// use errors.As on it to read the failure type and the cause.
	OnError(ctx context.Context, info Info, err error)
	// OnCacheHit is called, and nothing else, when the response came from the request cache.
	OnCacheHit(ctx context.Context, info Info)
	// OnUnsubscribe is called when the caller went away before the command completed.
	OnUnsubscribe(ctx context.Context, info Info)
}

// EmitIgnorer is implemented by an ExecutionHook whose OnExecutionEmit, OnEmit and
// OnFallbackEmit do nothing (a tracing hook, a hook that logs outcomes). A command does
// not call them on such a hook, so it spends neither the calls nor the boxing of each
// value into an any (an allocation for most types).
type EmitIgnorer interface {
	ExecutionHook
	// IgnoresEmits reports whether the emit methods can be left out (true), or must be
	// called all the same.
	IgnoresEmits() bool
}

// IgnoresEmits reports whether h's emit methods can be left out (EmitIgnorer): a command
// asks once per value it would call them with. An IgnoresEmits that panics counts as
// false: the emit methods are then called, each behind the command's panic guard.
func IgnoresEmits(h ExecutionHook) (ignores bool) {
	e, ok := h.(EmitIgnorer)
	if !ok {
		return false
	}
	defer func() {
		if recover() != nil {
			ignores = false
		}
	}()
	return e.IgnoresEmits()
}
