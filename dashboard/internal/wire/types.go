package wire

// The "type" field of each object on the streams. The handlers stamp it, so a snapshot
// may leave Type empty.
const (
	TypeCommand     = "HystrixCommand"
	TypeThreadPool  = "HystrixThreadPool"
	TypeCollapser   = "HystrixCollapser"
	TypeUtilization = "HystrixUtilization"
	TypeConfig      = "HystrixConfig"
)

// Snapshot is what one interval of /hystrix.stream publishes: one data frame per command,
// then per thread pool, then per collapser, in slice order.
type Snapshot struct {
	Commands    []Command
	ThreadPools []ThreadPool
	Collapsers  []Collapser
}

// Command is the HystrixCommand object of the dashboard stream, field for field as Hystrix
// 1.5 writes it (the JSON names are the Hystrix ones; the embedded structs are flattened).
// Durations are whole milliseconds. Type and CurrentTime are set by the handler.
type Command struct {
	Type                 string `json:"type"`
	Name                 string `json:"name"`
	Group                string `json:"group"`
	CurrentTime          int64  `json:"currentTime"` // Unix milliseconds of the tick
	IsCircuitBreakerOpen bool   `json:"isCircuitBreakerOpen"`
	ErrorPercentage      int    `json:"errorPercentage"`
	ErrorCount           int64  `json:"errorCount"`
	RequestCount         int64  `json:"requestCount"`
	CommandCounts
	CurrentConcurrentExecutionCount    int64       `json:"currentConcurrentExecutionCount"`
	RollingMaxConcurrentExecutionCount int64       `json:"rollingMaxConcurrentExecutionCount"`
	LatencyExecuteMean                 int64       `json:"latencyExecute_mean"`
	LatencyExecute                     Percentiles `json:"latencyExecute"`
	LatencyTotalMean                   int64       `json:"latencyTotal_mean"`
	LatencyTotal                       Percentiles `json:"latencyTotal"`
	*CommandAdaptive
	CommandPropertyValues
	ReportingHosts int    `json:"reportingHosts"` // 1 per process; Turbine sums it
	ThreadPool     string `json:"threadPool"`
}

// CommandAdaptive are the gauges of a command key's adaptive concurrency limit, beyond
// Hystrix (the Netflix dashboard ignores them): present only for a key under ADAPTIVE
// isolation that has run.
type CommandAdaptive struct {
	AdaptiveLimit    int `json:"adaptiveLimit"`    // the current limit
	AdaptiveInflight int `json:"adaptiveInflight"` // executions holding a permit
	AdaptiveQueue    int `json:"adaptiveQueue"`    // executions waiting for one
}

// CommandCounts are the rolling event counts of a command (rolling statistical window):
// one field per event type that metrics.EventType.StreamName names, rollingCount<name>.
type CommandCounts struct {
	BadRequests        int64 `json:"rollingCountBadRequests"`
	CollapsedRequests  int64 `json:"rollingCountCollapsedRequests"`
	Emit               int64 `json:"rollingCountEmit"`
	ExceptionsThrown   int64 `json:"rollingCountExceptionsThrown"`
	Failure            int64 `json:"rollingCountFailure"`
	FallbackEmit       int64 `json:"rollingCountFallbackEmit"`
	FallbackFailure    int64 `json:"rollingCountFallbackFailure"`
	FallbackMissing    int64 `json:"rollingCountFallbackMissing"`
	FallbackRejection  int64 `json:"rollingCountFallbackRejection"`
	FallbackSuccess    int64 `json:"rollingCountFallbackSuccess"`
	ResponsesFromCache int64 `json:"rollingCountResponsesFromCache"`
	SemaphoreRejected  int64 `json:"rollingCountSemaphoreRejected"`
	ShortCircuited     int64 `json:"rollingCountShortCircuited"`
	Success            int64 `json:"rollingCountSuccess"`
	ThreadPoolRejected int64 `json:"rollingCountThreadPoolRejected"`
	Timeout            int64 `json:"rollingCountTimeout"`
	// Beyond Hystrix: the rate limiter's refusals and the executions the fault injection
	// stage picked.
	RateLimited   int64 `json:"rollingCountRateLimited"`
	FaultInjected int64 `json:"rollingCountFaultInjected"`
	// AdaptiveRejected is beyond Hystrix (ADAPTIVE isolation): the Netflix dashboard
	// ignores it.
	AdaptiveRejected int64 `json:"rollingCountAdaptiveRejected"`

	// Beyond Hystrix (a Hystrix dashboard ignores them): retries, hedges and their budget.
	Retry           int64 `json:"rollingCountRetry"`
	BudgetExhausted int64 `json:"rollingCountBudgetExhausted"`
	Hedge           int64 `json:"rollingCountHedge"`
	// Throttled is beyond Hystrix (graded throttling): the calls the key's adaptive
	// throttle refused.
	Throttled int64 `json:"rollingCountThrottled"`

	// Beyond Hystrix: the stream events (command.Stream), omitted while zero so that a
	// key without streams sends what Hystrix sends.
	EstablishTimeout int64 `json:"rollingCountEstablishTimeout,omitempty"`
	IdleTimeout      int64 `json:"rollingCountIdleTimeout,omitempty"`
	MidStreamFailure int64 `json:"rollingCountMidStreamFailure,omitempty"`
	StreamResumed    int64 `json:"rollingCountStreamResumed,omitempty"`
}

// CommandPropertyValues are the property values a command actually runs with.
// ExecutionIsolationThreadPoolKeyOverride is null in JSON when unset, as in Hystrix.
type CommandPropertyValues struct {
	CircuitBreakerRequestVolumeThreshold             int     `json:"propertyValue_circuitBreakerRequestVolumeThreshold"`
	CircuitBreakerSleepWindowInMilliseconds          int64   `json:"propertyValue_circuitBreakerSleepWindowInMilliseconds"`
	CircuitBreakerErrorThresholdPercentage           int     `json:"propertyValue_circuitBreakerErrorThresholdPercentage"`
	CircuitBreakerForceOpen                          bool    `json:"propertyValue_circuitBreakerForceOpen"`
	CircuitBreakerForceClosed                        bool    `json:"propertyValue_circuitBreakerForceClosed"`
	CircuitBreakerEnabled                            bool    `json:"propertyValue_circuitBreakerEnabled"`
	ExecutionIsolationStrategy                       string  `json:"propertyValue_executionIsolationStrategy"`
	ExecutionIsolationThreadTimeoutInMilliseconds    int64   `json:"propertyValue_executionIsolationThreadTimeoutInMilliseconds"`
	ExecutionTimeoutInMilliseconds                   int64   `json:"propertyValue_executionTimeoutInMilliseconds"`
	ExecutionIsolationThreadInterruptOnTimeout       bool    `json:"propertyValue_executionIsolationThreadInterruptOnTimeout"`
	ExecutionIsolationThreadPoolKeyOverride          *string `json:"propertyValue_executionIsolationThreadPoolKeyOverride"`
	ExecutionIsolationSemaphoreMaxConcurrentRequests int     `json:"propertyValue_executionIsolationSemaphoreMaxConcurrentRequests"`
	FallbackIsolationSemaphoreMaxConcurrentRequests  int     `json:"propertyValue_fallbackIsolationSemaphoreMaxConcurrentRequests"`
	MetricsRollingStatisticalWindowInMilliseconds    int64   `json:"propertyValue_metricsRollingStatisticalWindowInMilliseconds"`
	RequestCacheEnabled                              bool    `json:"propertyValue_requestCacheEnabled"`
	RequestLogEnabled                                bool    `json:"propertyValue_requestLogEnabled"`
	// StreamCutsCountForHealth is beyond Hystrix: stream.cutsCountForHealth, whether a
	// stream cut after its first item counts toward the breaker.
	StreamCutsCountForHealth bool `json:"propertyValue_streamCutsCountForHealth"`
}

// ThreadPool is the HystrixThreadPool object of the dashboard stream. Type and
// CurrentTime are set by the handler.
type ThreadPool struct {
	Type                          string `json:"type"`
	Name                          string `json:"name"`
	CurrentTime                   int64  `json:"currentTime"`
	CurrentActiveCount            int    `json:"currentActiveCount"`
	CurrentCompletedTaskCount     int64  `json:"currentCompletedTaskCount"`
	CurrentCorePoolSize           int    `json:"currentCorePoolSize"`
	CurrentLargestPoolSize        int    `json:"currentLargestPoolSize"`
	CurrentMaximumPoolSize        int    `json:"currentMaximumPoolSize"`
	CurrentPoolSize               int    `json:"currentPoolSize"`
	CurrentQueueSize              int    `json:"currentQueueSize"`
	CurrentTaskCount              int64  `json:"currentTaskCount"`
	RollingCountThreadsExecuted   int64  `json:"rollingCountThreadsExecuted"`
	RollingMaxActiveThreads       int64  `json:"rollingMaxActiveThreads"`
	RollingCountCommandRejections int64  `json:"rollingCountCommandRejections"`
	// PropertyValueQueueSizeRejectionThreshold is queueSizeRejectionThreshold.
	PropertyValueQueueSizeRejectionThreshold int `json:"propertyValue_queueSizeRejectionThreshold"`
	// PropertyValueMetricsRollingStatisticalWindow is metrics.rollingStats.timeInMilliseconds.
	PropertyValueMetricsRollingStatisticalWindow int64 `json:"propertyValue_metricsRollingStatisticalWindowInMilliseconds"`
	ReportingHosts                               int   `json:"reportingHosts"`
}

// Collapser is the HystrixCollapser object of the dashboard stream. Type and CurrentTime
// are set by the handler. PropertyValueMaxRequestsInBatch is 2147483647 (Java's
// Integer.MAX_VALUE, what Hystrix reports) when batches are unbounded.
type Collapser struct {
	Type                                  string     `json:"type"`
	Name                                  string     `json:"name"`
	CurrentTime                           int64      `json:"currentTime"`
	RollingCountRequestsBatched           int64      `json:"rollingCountRequestsBatched"`
	RollingCountBatches                   int64      `json:"rollingCountBatches"`
	RollingCountResponsesFromCache        int64      `json:"rollingCountResponsesFromCache"`
	BatchSizeMean                         int64      `json:"batchSize_mean"`
	BatchSize                             BatchSizes `json:"batchSize"`
	PropertyValueRequestCacheEnabled      bool       `json:"propertyValue_requestCacheEnabled"`
	PropertyValueMaxRequestsInBatch       int        `json:"propertyValue_maxRequestsInBatch"`
	PropertyValueTimerDelayInMilliseconds int64      `json:"propertyValue_timerDelayInMilliseconds"`
	ReportingHosts                        int        `json:"reportingHosts"`
}

// UnboundedBatch is the maxRequestsInBatch Hystrix reports for a collapser without a
// batch limit (Java's Integer.MAX_VALUE).
const UnboundedBatch = 1<<31 - 1
