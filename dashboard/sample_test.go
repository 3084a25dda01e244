package dashboard

import (
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// sampleSnapshot has a distinct value in every field, so a misplaced field shows.
func sampleSnapshot() wire.Snapshot {
	override := "UsersOverride"
	return wire.Snapshot{
		Commands: []wire.Command{{
			Name: "GetUser", Group: "Users", ThreadPool: "Users",
			IsCircuitBreakerOpen: true, ErrorPercentage: 60, ErrorCount: 12, RequestCount: 20,
			CommandCounts: wire.CommandCounts{
				BadRequests: 1, CollapsedRequests: 2, Emit: 3, ExceptionsThrown: 4, Failure: 5,
				FallbackEmit: 6, FallbackFailure: 7, FallbackMissing: 8, FallbackRejection: 9,
				FallbackSuccess: 10, ResponsesFromCache: 11, SemaphoreRejected: 12,
				ShortCircuited: 13, Success: 14, ThreadPoolRejected: 15, Timeout: 16,
			},
			CurrentConcurrentExecutionCount: 3, RollingMaxConcurrentExecutionCount: 7,
			LatencyExecuteMean: 21, LatencyExecute: wire.Percentiles{1, 5, 10, 20, 40, 60, 90, 95, 120},
			LatencyTotalMean: 23, LatencyTotal: wire.Percentiles{2, 6, 11, 21, 41, 61, 91, 96, 121},
			CommandPropertyValues: wire.CommandPropertyValues{
				CircuitBreakerRequestVolumeThreshold: 20, CircuitBreakerSleepWindowInMilliseconds: 5000,
				CircuitBreakerErrorThresholdPercentage: 50, CircuitBreakerEnabled: true,
				ExecutionIsolationStrategy:                    "THREAD",
				ExecutionIsolationThreadTimeoutInMilliseconds: 1000, ExecutionTimeoutInMilliseconds: 1000,
				ExecutionIsolationThreadInterruptOnTimeout:       true,
				ExecutionIsolationSemaphoreMaxConcurrentRequests: 10,
				FallbackIsolationSemaphoreMaxConcurrentRequests:  11,
				MetricsRollingStatisticalWindowInMilliseconds:    10000,
				RequestCacheEnabled:                              true, RequestLogEnabled: true,
				StreamCutsCountForHealth: true,
			},
		}, {
			Name: "ListUsers", Group: "Users", ThreadPool: "UsersOverride", ReportingHosts: 3,
			CommandPropertyValues: wire.CommandPropertyValues{
				ExecutionIsolationStrategy:              "SEMAPHORE",
				ExecutionIsolationThreadPoolKeyOverride: &override,
				CircuitBreakerForceOpen:                 true, CircuitBreakerForceClosed: true,
			},
		}},
		ThreadPools: []wire.ThreadPool{{
			Name: "Users", CurrentActiveCount: 2, CurrentCompletedTaskCount: 100, CurrentCorePoolSize: 10,
			CurrentLargestPoolSize: 6, CurrentMaximumPoolSize: 12, CurrentPoolSize: 5, CurrentQueueSize: 1,
			CurrentTaskCount: 103, RollingCountThreadsExecuted: 40, RollingMaxActiveThreads: 4,
			RollingCountCommandRejections: 3, PropertyValueQueueSizeRejectionThreshold: 5,
			PropertyValueMetricsRollingStatisticalWindow: 10000,
		}},
		Collapsers: []wire.Collapser{{
			Name: "UserBatch", RollingCountRequestsBatched: 30, RollingCountBatches: 4,
			RollingCountResponsesFromCache: 2, BatchSizeMean: 7, BatchSize: wire.BatchSizes{3, 5, 7, 9, 10, 11, 12, 13},
			PropertyValueRequestCacheEnabled: true, PropertyValueMaxRequestsInBatch: wire.UnboundedBatch,
			PropertyValueTimerDelayInMilliseconds: 10,
		}},
	}
}
