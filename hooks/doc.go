// Package hooks holds the plugins a command calls while it runs: the ExecutionHook, told
// about every step of every execution, and the EventNotifier, told about every event and
// every finished execution. Both are optional; the defaults (NoopHook, NoopNotifier) do
// nothing.
//
// A Registry holds the current plugins. Unlike Hystrix, where plugins can be registered
// only once, they can be replaced at any time: the registry keeps them behind atomic
// pointers, and a command loads each one once per execution (one atomic load, no
// allocation). Default is the process-wide registry; NewRegistry makes an isolated one
// for tests or for a group of commands.
//
//	user code ── SetExecutionHook / SetEventNotifier ──▶ Registry (atomic pointers)
//	                                                        │ one Load per execution
//	command ─▶ h := reg.ExecutionHook(); noop := hooks.IsNoop(h)
//	   OnStart ─▶ [OnThreadStart] ─▶ OnExecutionStart ─▶ OnExecutionEmit ─▶ OnEmit
//	   ─▶ OnExecutionSuccess | OnExecutionError ─▶ [OnThreadComplete]
//	   ─▶ [OnFallbackStart ─▶ OnFallbackEmit ─▶ OnEmit ─▶ OnFallbackSuccess | OnFallbackError]
//	   ─▶ OnSuccess | OnError             (a cache hit calls OnCacheHit only;
//	                                       a caller that goes away gets OnUnsubscribe)
//	command ─▶ n := reg.EventNotifier(); if !hooks.IsNoopNotifier(n) {
//	              n.MarkEvent(ctx, e, key) per event; n.MarkCommandExecution(ctx, ...) at the end }
//
// Every call gets the execution's context: OnStart the caller's, and what OnStart returns
// (the caller's context or a child of it, e.g. with a trace span) is the context of the
// rest of the execution, so a hook can log or trace from any step and find, in a later
// step, what it put there at the start.
//
// The emit hooks get the value as an any; a hook whose emit methods do nothing says so
// (EmitIgnorer), and the command leaves them out instead of boxing every value for them;
// likewise a notifier whose MarkCommandExecution does nothing (ExecutionIgnorer).
//
// The thread hooks are called only under thread isolation. A timeout skips
// OnExecutionError; a rejection or short circuit goes from OnStart straight to the
// fallback hooks or OnError.
//
// A Registry holds one hook and one notifier; Compose and ComposeNotifiers fan out to
// several, so a tracing plugin (contrib/hystrixotel) can run next to your own.
//
// To check in a test which hooks your commands call, in order, use hystrixtest: its
// Recorder's ExpectHooks and HookCalls.
package hooks
