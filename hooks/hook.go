package hooks

// Info identifies the command a hook call is about.
type Info struct {
	CommandKey    string
	GroupKey      string
	ThreadPoolKey string
}

// ExecutionHook is called at every step of a command execution, in the order of its
// methods (see the package documentation for the exact sequences). Implementations must
// be safe for concurrent use: many commands call the same hook at once. Embed NoopHook
// to implement only the methods you care about.
//
// A hook that returns an error or panics in OnStart fails the command fast; in
// OnThreadStart or OnExecutionStart it counts as a failure of the run itself, as in
// Hystrix. The other methods have no way to report failure and should not panic.
type ExecutionHook interface {
	// OnStart is called before anything else, once the command is not a cache hit.
	OnStart(info Info) error
	// OnThreadStart is called on the pool goroutine before the run (thread isolation only).
	OnThreadStart(info Info) error
	// OnExecutionStart is called just before the user's run or construct function.
	OnExecutionStart(info Info) error
	// OnExecutionEmit is called for every value the run produces.
	OnExecutionEmit(info Info, value any)
	// OnEmit is called for every value the caller receives, from the run or the fallback.
	OnEmit(info Info, value any)
	// OnExecutionSuccess is called when the run completed without error.
	OnExecutionSuccess(info Info)
	// OnExecutionError is called when the run failed (not on timeout).
	OnExecutionError(info Info, err error)
	// OnThreadComplete is called on the pool goroutine when the run ended (thread isolation only).
	OnThreadComplete(info Info)
	// OnFallbackStart is called just before the user's fallback.
	OnFallbackStart(info Info)
	// OnFallbackEmit is called for every value the fallback produces.
	OnFallbackEmit(info Info, value any)
	// OnFallbackSuccess is called when the fallback completed without error.
	OnFallbackSuccess(info Info)
	// OnFallbackError is called when the fallback failed.
	OnFallbackError(info Info, err error)
	// OnSuccess is called once when the command completed with a value (from the run or
	// the fallback).
	OnSuccess(info Info)
	// OnError is called once when the command failed. err is the command's runtime error;
	// use errors.As on it to read the failure type and the cause.
	OnError(info Info, err error)
	// OnCacheHit is called, and nothing else, when the response came from the request cache.
	OnCacheHit(info Info)
	// OnUnsubscribe is called when the caller went away before the command completed.
	OnUnsubscribe(info Info)
}
