package wire

// Utilization is the one object per interval of /hystrix/utilization.stream, shaped like
// Hystrix's HystrixUtilization: commands and thread pools keyed by name. Type is set by
// the handler; nil maps are written as {}.
type Utilization struct {
	Type        string                           `json:"type"`
	Commands    map[string]CommandUtilization    `json:"commands"`
	ThreadPools map[string]ThreadPoolUtilization `json:"threadpools"`
}

// CommandUtilization is the live load of one command key.
type CommandUtilization struct {
	// ActiveCount is the number of executions running now.
	ActiveCount int64 `json:"activeCount"`
}

// ThreadPoolUtilization is the live load of one thread pool. Utilization is not in
// Hystrix: the share of the pool's maximum size that is busy, in percent (0..100).
type ThreadPoolUtilization struct {
	ActiveCount  int `json:"activeCount"`
	QueueSize    int `json:"queueSize"`
	CorePoolSize int `json:"corePoolSize"`
	PoolSize     int `json:"poolSize"`
	Utilization  int `json:"utilization"`
}
