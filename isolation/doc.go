// Package isolation holds what a caller matches when THREAD isolation refuses a run
// (REJECTED_THREAD_EXECUTION): ErrRejected, and RejectedError, which names the pool and
// the reason. It is the cause of the command's error and the error a fallback is called
// with:
//
//	WithFallback(func(ctx context.Context, err error) (T, error) {
//		if errors.Is(err, isolation.ErrRejected) { // the pool was full
//			...
//		}
//	})
//
// The command's error itself also matches command.ErrThreadPoolFull. The goroutine pools
// and semaphores that isolate commands are the command package's own (its Runtime makes
// them from the thread-pool properties); their gauges are in metrics.ThreadPoolMetrics.
package isolation
