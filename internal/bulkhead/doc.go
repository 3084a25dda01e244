// Package bulkhead holds Hystrix's semaphores and its goroutine pool per thread-pool key
// (THREAD strategy): the engine of package command's THREAD isolation and fallback
// semaphore, testable on its own. Users do not call it; what they match when a pool
// refuses a run, isolation.ErrRejected and *isolation.RejectedError, is public in package
// isolation. Messages and errors say "isolation:", the name users know the pools by.
//
// Semaphore is a lock-free, non-blocking counting semaphore whose limit is a live
// config.Property[int]: TryAcquire reads the limit on every call, so changes apply at once
// (downward too). The command package makes one per command key for its fallback, and
// Releases each permit exactly once, in a deferred call of the stage that took it (so a
// runtime.Goexit in user code gives it back too). The execution semaphore of SEMAPHORE
// isolation works the same way on the key's concurrency counter in metrics
// (CommandMetrics.TryMarkStart), so that an execution writes one counter, not two.
//
// Pool is the goroutine pool of one thread-pool key, with the semantics Hystrix gets from
// java.util.concurrent.ThreadPoolExecutor: coreSize, maximumSize (only with
// allowMaximumSizeToDivergeFromCoreSize), maxQueueSize (-1: hand-off only) and the dynamic
// queueSizeRejectionThreshold. SubmitTask (a Task: a pooled value that is its own task
// costs no allocation) never blocks: it accepts the task or returns an
// *isolation.RejectedError matching isolation.ErrRejected, which the command turns into
// THREAD_POOL_REJECTED (the rejection's cause).
// Pool.Gauges carries the ThreadPoolExecutor gauges; the command package hands it to the
// pool's metrics.ThreadPoolMetrics (SetGauges), where the dashboard reads them.
// PoolRegistry makes one Pool per key from a config.Store (fresh per test, or Default);
// making a pool costs the same whatever the number of pools, and Evict closes and forgets
// the pool of a key gone idle (the command package calls it when the key's thread-pool
// metrics are evicted), so the next Get makes a fresh one.
//
// Data flow of a THREAD-isolated task:
//
//	command ──SubmitTask(task)──▶ Pool (mutex held for a few field updates only)
//	                            │ closed? ─────────────────────────────▶ ErrClosed (+ErrRejected)
//	                            │ queue len >= threshold (queue mode) ─▶ ErrRejected
//	                            ├─ idle worker? ── pop LIFO ── task ──▶ worker chan (cap 1) ─┐
//	                            ├─ workers < core? ── start worker ──────────────────────────┤
//	                            ├─ queue mode, room? ── FIFO ring ◀── workers pull ──────────┤
//	                            ├─ workers < effective max? ── start worker ─────────────────┤
//	                            └─ else ───────────────────────────────────▶ ErrRejected      │
//	                                                                                          ▼
//	worker goroutine: run task (panics recovered, slog) ─▶ next: queued task, else park idle
//	                  idle above core for keepAlive ◀── one reaper timer per pool (clock.Clock)
//
// Workers start lazily. A Task handed to an idle worker costs no allocation; a new worker
// costs a goroutine, a channel and a small struct. Close rejects new tasks, lets running
// and queued ones finish, and returns when every worker goroutine has exited.
package bulkhead
