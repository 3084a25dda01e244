package wire

// Config is the one object per interval of /hystrix/config.stream, shaped like Hystrix's
// HystrixConfig: every known command, thread pool and collapser keyed by name, each with
// the values it runs with under Hystrix's field names. Type is set by the handler; nil
// maps are written as {}.
//
// Two differences from Hystrix, which writes a few values from the wrong property:
// isForcedClosed is circuitBreaker.forceClosed (Hystrix repeats forceOpen) and
// percentileBucketCount is metrics.rollingPercentile.numBuckets (Hystrix writes the
// counter's). One extension: Properties lists every property by the name users set it
// by (e.g. "execution.isolation.strategy") with the value as Hystrix prints it
// ("THREAD", "1000", "true").
type Config struct {
	Type        string                      `json:"type"`
	Commands    map[string]CommandConfig    `json:"commands"`
	ThreadPools map[string]ThreadPoolConfig `json:"threadpools"`
	Collapsers  map[string]CollapserConfig  `json:"collapsers"`
}

// CommandConfig is the configuration of one command key.
type CommandConfig struct {
	ThreadPoolKey  string               `json:"threadPoolKey"`
	GroupKey       string               `json:"groupKey"`
	Execution      ExecutionConfig      `json:"execution"`
	Metrics        CommandMetricsConfig `json:"metrics"`
	CircuitBreaker CircuitBreakerConfig `json:"circuitBreaker"`
	Properties     map[string]string    `json:"properties"`
}

// ExecutionConfig is how a command runs. ThreadPoolKeyOverride is null when unset.
type ExecutionConfig struct {
	IsolationStrategy        string  `json:"isolationStrategy"`
	ThreadPoolKeyOverride    *string `json:"threadPoolKeyOverride"`
	RequestCacheEnabled      bool    `json:"requestCacheEnabled"`
	RequestLogEnabled        bool    `json:"requestLogEnabled"`
	TimeoutEnabled           bool    `json:"timeoutEnabled"`
	FallbackEnabled          bool    `json:"fallbackEnabled"`
	TimeoutInMilliseconds    int64   `json:"timeoutInMilliseconds"`
	SemaphoreSize            int     `json:"semaphoreSize"`
	FallbackSemaphoreSize    int     `json:"fallbackSemaphoreSize"`
	ThreadInterruptOnTimeout bool    `json:"threadInterruptOnTimeout"`
}

// CommandMetricsConfig is a command's metrics windows: its health snapshot interval and
// its rolling windows.
type CommandMetricsConfig struct {
	HealthBucketSizeInMs int64 `json:"healthBucketSizeInMs"`
	MetricsConfig
}

// MetricsConfig is the bucketing of the rolling percentile and counter windows (bucket
// size = window / bucket count).
type MetricsConfig struct {
	PercentileBucketSizeInMilliseconds int64 `json:"percentileBucketSizeInMilliseconds"`
	PercentileBucketCount              int   `json:"percentileBucketCount"`
	PercentileEnabled                  bool  `json:"percentileEnabled"`
	CounterBucketSizeInMilliseconds    int64 `json:"counterBucketSizeInMilliseconds"`
	CounterBucketCount                 int   `json:"counterBucketCount"`
}

// CircuitBreakerConfig is a command's breaker settings.
type CircuitBreakerConfig struct {
	Enabled                  bool  `json:"enabled"`
	IsForcedOpen             bool  `json:"isForcedOpen"`
	IsForcedClosed           bool  `json:"isForcedClosed"`
	RequestVolumeThreshold   int   `json:"requestVolumeThreshold"`
	ErrorPercentageThreshold int   `json:"errorPercentageThreshold"`
	SleepInMilliseconds      int64 `json:"sleepInMilliseconds"`
}

// ThreadPoolConfig is the configuration of one thread-pool key.
type ThreadPoolConfig struct {
	CoreSize                              int               `json:"coreSize"`
	MaximumSize                           int               `json:"maximumSize"`
	MaxQueueSize                          int               `json:"maxQueueSize"`
	QueueRejectionThreshold               int               `json:"queueRejectionThreshold"`
	KeepAliveTimeInMinutes                int64             `json:"keepAliveTimeInMinutes"`
	AllowMaximumSizeToDivergeFromCoreSize bool              `json:"allowMaximumSizeToDivergeFromCoreSize"`
	CounterBucketSizeInMilliseconds       int64             `json:"counterBucketSizeInMilliseconds"`
	CounterBucketCount                    int               `json:"counterBucketCount"`
	Properties                            map[string]string `json:"properties"`
}

// CollapserConfig is the configuration of one collapser key. MaxRequestsInBatch is
// UnboundedBatch when batches are unbounded.
type CollapserConfig struct {
	MaxRequestsInBatch       int               `json:"maxRequestsInBatch"`
	TimerDelayInMilliseconds int64             `json:"timerDelayInMilliseconds"`
	RequestCacheEnabled      bool              `json:"requestCacheEnabled"`
	Metrics                  MetricsConfig     `json:"metrics"`
	Properties               map[string]string `json:"properties"`
}
