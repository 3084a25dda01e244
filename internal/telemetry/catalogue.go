package telemetry

// Kind says how a metric's value behaves over time.
type Kind uint8

const (
	// Counter only grows; it starts again from 0 when its key is evicted and comes back.
	Counter Kind = iota
	// Gauge is a current value.
	Gauge
)

// Metric describes one metric family of the catalogue.
type Metric struct {
	// Name is dotted, without a prefix: "command.events". Exporters add their prefix
	// and naming convention.
	Name string
	// Unit is a UCUM unit as OpenTelemetry writes it: "s", or an annotation such as
	// "{event}".
	Unit   string
	Kind   Kind
	Help   string
	Labels []string // label names, in the order Read passes their values
}

// The metrics of the catalogue; each is an index into Catalogue.
const (
	CommandEvents = iota
	CommandExecutionLatency
	CommandExecutionLatencyMean
	CommandTotalLatency
	CommandTotalLatencyMean
	CommandConcurrentExecutions
	CommandMaxConcurrentExecutions
	CommandHealthRequests
	CommandHealthErrors
	CircuitBreakerState
	CircuitBreakerTransitions
	ThreadPoolEvents
	ThreadPoolActiveThreads
	ThreadPoolMaxActiveThreads
	ThreadPoolQueuedTasks
	ThreadPoolThreads
	ThreadPoolLargestThreads
	ThreadPoolCoreThreads
	ThreadPoolMaxThreads
	ThreadPoolCompletedTasks
	ThreadPoolTasks
	CollapserEvents
	CollapserBatchSize
	CollapserBatchSizeMean
	CommandAdaptiveLimit
	CommandAdaptiveInflight
	CommandAdaptiveQueued

	// NumMetrics is the number of metrics in the catalogue.
	NumMetrics
)

// Label names.
const (
	LabelCommand    = "command"
	LabelGroup      = "group"
	LabelThreadPool = "thread_pool"
	LabelCollapser  = "collapser"
	LabelEvent      = "event"
	LabelPercentile = "percentile"
	LabelState      = "state"
	LabelFrom       = "from"
	LabelTo         = "to"
)

var (
	commandLabels = []string{LabelCommand, LabelGroup, LabelThreadPool}
	poolLabels    = []string{LabelThreadPool}
	collLabels    = []string{LabelCollapser}
)

func with(base []string, extra ...string) []string {
	return append(append([]string(nil), base...), extra...)
}

const pctHelp = " percentile over the rollingPercentile window (60 s by default), within 1.6 % relative accuracy; 0 when the window is empty."

// Catalogue is every metric the exporters publish, indexed by the constants above.
var Catalogue = [NumMetrics]Metric{
	CommandEvents: {"command.events", "{event}", Counter,
		"Events of a command key by event type (Hystrix's and rxhystrix's own), since its metrics were created; success, failure, timeout, short_circuited, thread_pool_rejected and semaphore_rejected always, the others from their first occurrence.",
		with(commandLabels, LabelEvent)},
	CommandExecutionLatency: {"command.execution_latency", "s", Gauge,
		"Run latency" + pctHelp, with(commandLabels, LabelPercentile)},
	CommandExecutionLatencyMean: {"command.execution_latency.mean", "s", Gauge,
		"Mean run latency over the rollingPercentile window.", commandLabels},
	CommandTotalLatency: {"command.total_latency", "s", Gauge,
		"Total latency (queue wait, run and fallback)" + pctHelp, with(commandLabels, LabelPercentile)},
	CommandTotalLatencyMean: {"command.total_latency.mean", "s", Gauge,
		"Mean total latency over the rollingPercentile window.", commandLabels},
	CommandConcurrentExecutions: {"command.concurrent_executions", "{execution}", Gauge,
		"Executions of a command key running now.", commandLabels},
	CommandMaxConcurrentExecutions: {"command.max_concurrent_executions", "{execution}", Gauge,
		"Highest number of concurrent executions over the rollingStats window (10 s by default).", commandLabels},
	CommandHealthRequests: {"command.health.requests", "{request}", Gauge,
		"Requests in the circuit breaker's health window (success, failure, timeout and rejections; 10 s by default).", commandLabels},
	CommandHealthErrors: {"command.health.errors", "{request}", Gauge,
		"Failed requests (failure, timeout, rejections) in the circuit breaker's health window.", commandLabels},
	CircuitBreakerState: {"circuit_breaker.state", "1", Gauge,
		"1 for the state the circuit breaker of a command key is in (closed, open, half_open), 0 for the others; force flags are not reflected.",
		with(commandLabels, LabelState)},
	CircuitBreakerTransitions: {"circuit_breaker.transitions", "{transition}", Counter,
		"State changes of the circuit breaker of a command key since the exporter started, from the first one.",
		with(commandLabels, LabelFrom, LabelTo)},
	ThreadPoolEvents: {"thread_pool.events", "{event}", Counter,
		"Commands a thread pool executed or rejected, since its metrics were created.", with(poolLabels, LabelEvent)},
	ThreadPoolActiveThreads: {"thread_pool.active_threads", "{thread}", Gauge,
		"Workers of a thread pool running a command now.", poolLabels},
	ThreadPoolMaxActiveThreads: {"thread_pool.max_active_threads", "{thread}", Gauge,
		"Highest number of active workers over the rollingStats window.", poolLabels},
	ThreadPoolQueuedTasks: {"thread_pool.queued_tasks", "{task}", Gauge,
		"Commands waiting in the thread pool's queue.", poolLabels},
	ThreadPoolThreads: {"thread_pool.threads", "{thread}", Gauge,
		"Workers of the thread pool, busy or idle.", poolLabels},
	ThreadPoolLargestThreads: {"thread_pool.largest_threads", "{thread}", Gauge,
		"Largest number of workers the thread pool has had.", poolLabels},
	ThreadPoolCoreThreads: {"thread_pool.core_threads", "{thread}", Gauge,
		"Current coreSize of the thread pool.", poolLabels},
	ThreadPoolMaxThreads: {"thread_pool.max_threads", "{thread}", Gauge,
		"Current effective maximum size of the thread pool.", poolLabels},
	ThreadPoolCompletedTasks: {"thread_pool.completed_tasks", "{task}", Counter,
		"Commands the thread pool finished running.", poolLabels},
	ThreadPoolTasks: {"thread_pool.tasks", "{task}", Counter,
		"Commands the thread pool accepted.", poolLabels},
	CollapserEvents: {"collapser.events", "{event}", Counter,
		"Events of a request collapser (batch_executed, added_to_batch, response_from_cache), since its metrics were created.",
		with(collLabels, LabelEvent)},
	CollapserBatchSize: {"collapser.batch_size", "{request}", Gauge,
		"Batch size" + pctHelp, with(collLabels, LabelPercentile)},
	CollapserBatchSizeMean: {"collapser.batch_size.mean", "{request}", Gauge,
		"Mean batch size over the rollingPercentile window.", collLabels},
	CommandAdaptiveLimit: {"command.adaptive.limit", "{execution}", Gauge,
		"Current adaptive concurrency limit of a command key under ADAPTIVE isolation (its group's when it has one).", commandLabels},
	CommandAdaptiveInflight: {"command.adaptive.inflight", "{execution}", Gauge,
		"Executions holding a permit of the adaptive limit of a command key under ADAPTIVE isolation.", commandLabels},
	CommandAdaptiveQueued: {"command.adaptive.queued", "{execution}", Gauge,
		"Executions waiting for a permit of the adaptive limit (execution.isolation.adaptive.queueSize).", commandLabels},
}
