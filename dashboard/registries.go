package dashboard

import (
	"math"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Registries reads the three streams' objects from the library's registries: it is a
// Provider, a UtilizationProvider and a ConfigProvider. Every call reads the current
// values (mostly atomic loads). Keys appear once the library has made their metrics
// (commands, thread pools and collapsers of Metrics) or properties (config stream); the
// only thing a call may create is the breaker of a command that has none yet
// (breaker.Registry.Get, with the command's own cached properties).
//
// Nil fields leave their part out: no Metrics, no /hystrix.stream or utilization
// objects; no Properties, zero property values and an empty config stream; no Breakers,
// isCircuitBreakerOpen false; no Pools, thread-pool gauges from
// metrics.ThreadPoolMetrics.Gauges. DefaultRegistries fills all four with the
// process-wide registries.
type Registries struct {
	Properties *config.Store
	Metrics    *metrics.Registry
	Breakers   *breaker.Registry
	Pools      *isolation.PoolRegistry
	// CommandKeys returns the group and thread-pool keys of a command key (the command
	// package knows them). Empty results, or a nil CommandKeys, fall back to the command
	// key as group and to threadPoolKeyOverride, else the group, as thread pool.
	CommandKeys func(command string) (group, threadPool string)
}

// DefaultRegistries returns Registries over config.Default, metrics.Default,
// breaker.Default and isolation.Default: those of command.Default(). Set CommandKeys to
// command.Default().CommandKeys as well, or the frames report each command key as its
// group and thread pool.
func DefaultRegistries() Registries {
	return Registries{Properties: config.Default(), Metrics: metrics.Default(),
		Breakers: breaker.Default(), Pools: isolation.Default()}
}

// Snapshot returns one HystrixCommand per command key of Metrics, one HystrixThreadPool
// per thread-pool key and one HystrixCollapser per collapser key, each sorted by key.
// Latency percentiles are rounded to whole milliseconds (they come from histograms with
// 1.6 % relative accuracy); means are truncated, as Hystrix does.
func (r Registries) Snapshot() Snapshot {
	if r.Metrics == nil {
		return Snapshot{}
	}
	var s Snapshot
	cmdProps := props(r.Properties, (*config.Store).Commands)
	for _, m := range r.Metrics.Commands() {
		s.Commands = append(s.Commands, r.command(m, cmdProps[m.Key()]))
	}
	poolProps := props(r.Properties, (*config.Store).ThreadPools)
	pools := r.pools()
	for _, m := range r.Metrics.ThreadPools() {
		s.ThreadPools = append(s.ThreadPools, threadPool(m, poolProps[m.Key()], gauges(m, pools)))
	}
	colProps := props(r.Properties, (*config.Store).Collapsers)
	for _, m := range r.Metrics.Collapsers() {
		s.Collapsers = append(s.Collapsers, collapser(m, colProps[m.Key()]))
	}
	return s
}

// Utilization returns the live concurrency of every command key and the load of every
// thread pool of Metrics.
func (r Registries) Utilization() Utilization {
	if r.Metrics == nil {
		return Utilization{}
	}
	u := Utilization{Commands: map[string]CommandUtilization{}, ThreadPools: map[string]ThreadPoolUtilization{}}
	for _, m := range r.Metrics.Commands() {
		u.Commands[m.Key()] = CommandUtilization{ActiveCount: m.CurrentConcurrency()}
	}
	pools := r.pools()
	for _, m := range r.Metrics.ThreadPools() {
		g := gauges(m, pools)
		u.ThreadPools[m.Key()] = ThreadPoolUtilization{ActiveCount: g.ActiveCount, QueueSize: g.QueueSize,
			CorePoolSize: g.CorePoolSize, PoolSize: g.PoolSize,
			Utilization: UtilizationPercent(g.ActiveCount, g.MaximumPoolSize)}
	}
	return u
}

// Config returns the configuration of every command, thread-pool and collapser key of
// the Properties store, with current values.
func (r Registries) Config() Config {
	if r.Properties == nil {
		return Config{}
	}
	c := Config{Commands: map[string]CommandConfig{}, ThreadPools: map[string]ThreadPoolConfig{},
		Collapsers: map[string]CollapserConfig{}}
	for _, p := range r.Properties.Commands() {
		c.Commands[p.Key()] = r.commandConfig(p)
	}
	for _, p := range r.Properties.ThreadPools() {
		c.ThreadPools[p.Key()] = threadPoolConfig(p)
	}
	for _, p := range r.Properties.Collapsers() {
		c.Collapsers[p.Key()] = collapserConfig(p)
	}
	return c
}

func (r Registries) commandConfig(p *config.CommandProperties) CommandConfig {
	c := CommandConfig{
		Execution: ExecutionConfig{
			IsolationStrategy:        config.ExecutionIsolationStrategy.In(p).Get().String(),
			RequestCacheEnabled:      config.RequestCacheEnabled.In(p).Get(),
			RequestLogEnabled:        config.RequestLogEnabled.In(p).Get(),
			TimeoutEnabled:           config.ExecutionTimeoutEnabled.In(p).Get(),
			FallbackEnabled:          config.FallbackEnabled.In(p).Get(),
			TimeoutInMilliseconds:    config.ExecutionTimeout.In(p).Get().Milliseconds(),
			SemaphoreSize:            config.ExecutionMaxConcurrentRequests.In(p).Get(),
			FallbackSemaphoreSize:    config.FallbackMaxConcurrentRequests.In(p).Get(),
			ThreadInterruptOnTimeout: config.InterruptOnTimeout.In(p).Get(),
		},
		Metrics: CommandMetricsConfig{
			HealthBucketSizeInMs: config.HealthSnapshotInterval.In(p).Get().Milliseconds(),
			MetricsConfig: metricsConfig(config.RollingPercentileWindow.In(p).Get(), config.RollingPercentileBuckets.In(p).Get(),
				config.RollingPercentileEnabled.In(p).Get(), config.RollingStatsWindow.In(p).Get(), config.RollingStatsBuckets.In(p).Get()),
		},
		CircuitBreaker: CircuitBreakerConfig{
			Enabled:                  config.CircuitBreakerEnabled.In(p).Get(),
			IsForcedOpen:             config.CircuitBreakerForceOpen.In(p).Get(),
			IsForcedClosed:           config.CircuitBreakerForceClosed.In(p).Get(),
			RequestVolumeThreshold:   config.CircuitBreakerRequestVolumeThreshold.In(p).Get(),
			ErrorPercentageThreshold: config.CircuitBreakerErrorThresholdPercentage.In(p).Get(),
			SleepInMilliseconds:      config.CircuitBreakerSleepWindow.In(p).Get().Milliseconds(),
		},
		Properties: settings(p.Settings()),
	}
	c.GroupKey, c.ThreadPoolKey = r.keys(p.Key(), p)
	if o := config.ThreadPoolKeyOverride.In(p).Get(); o != "" {
		c.Execution.ThreadPoolKeyOverride = &o
	}
	return c
}

func threadPoolConfig(p *config.ThreadPoolProperties) ThreadPoolConfig {
	window, buckets := config.ThreadPoolRollingStatsWindow.In(p).Get(), config.ThreadPoolRollingStatsBuckets.In(p).Get()
	return ThreadPoolConfig{
		CoreSize:                              config.ThreadPoolCoreSize.In(p).Get(),
		MaximumSize:                           config.ThreadPoolMaximumSize.In(p).Get(),
		MaxQueueSize:                          config.ThreadPoolMaxQueueSize.In(p).Get(),
		QueueRejectionThreshold:               config.ThreadPoolQueueSizeRejectionThreshold.In(p).Get(),
		KeepAliveTimeInMinutes:                int64(config.ThreadPoolKeepAlive.In(p).Get() / time.Minute),
		AllowMaximumSizeToDivergeFromCoreSize: config.ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.In(p).Get(),
		CounterBucketSizeInMilliseconds:       (window / time.Duration(buckets)).Milliseconds(),
		CounterBucketCount:                    buckets,
		Properties:                            settings(p.Settings()),
	}
}

func collapserConfig(p *config.CollapserProperties) CollapserConfig {
	return CollapserConfig{
		MaxRequestsInBatch:       maxRequestsInBatch(p),
		TimerDelayInMilliseconds: config.CollapserTimerDelay.In(p).Get().Milliseconds(),
		RequestCacheEnabled:      config.CollapserRequestCacheEnabled.In(p).Get(),
		Metrics: metricsConfig(config.CollapserRollingPercentileWindow.In(p).Get(), config.CollapserRollingPercentileBuckets.In(p).Get(),
			config.CollapserRollingPercentileEnabled.In(p).Get(), config.CollapserRollingStatsWindow.In(p).Get(), config.CollapserRollingStatsBuckets.In(p).Get()),
		Properties: settings(p.Settings()),
	}
}

// metricsConfig describes a percentile window and a counter window by their buckets
// (the store guarantees bucket counts of at least 1).
func metricsConfig(pctWindow time.Duration, pctBuckets int, pctEnabled bool, window time.Duration, buckets int) MetricsConfig {
	return MetricsConfig{
		PercentileBucketSizeInMilliseconds: (pctWindow / time.Duration(pctBuckets)).Milliseconds(),
		PercentileBucketCount:              pctBuckets,
		PercentileEnabled:                  pctEnabled,
		CounterBucketSizeInMilliseconds:    (window / time.Duration(buckets)).Milliseconds(),
		CounterBucketCount:                 buckets,
	}
}

// maxRequestsInBatch is the batch limit as Hystrix reports it: UnboundedBatch for none.
func maxRequestsInBatch(p *config.CollapserProperties) int {
	if n := config.CollapserMaxRequestsInBatch.In(p).Get(); n > 0 {
		return n
	}
	return UnboundedBatch
}

func (r Registries) command(m *metrics.CommandMetrics, p *config.CommandProperties) Command {
	key := m.Key()
	h := m.HealthCounts()
	c := Command{
		Name:                               key,
		IsCircuitBreakerOpen:               r.Breakers != nil && p != nil && r.Breakers.Get(key, p).IsOpen(),
		ErrorPercentage:                    h.ErrorPercentage,
		ErrorCount:                         h.ErrorCount,
		RequestCount:                       h.TotalRequests,
		CommandCounts:                      commandCounts(m),
		CurrentConcurrentExecutionCount:    m.CurrentConcurrency(),
		RollingMaxConcurrentExecutionCount: m.RollingMaxConcurrency(),
		LatencyExecuteMean:                 m.ExecutionLatencyMean().Milliseconds(),
		LatencyExecute:                     percentiles(m.ExecutionLatencyPercentile),
		LatencyTotalMean:                   m.TotalLatencyMean().Milliseconds(),
		LatencyTotal:                       percentiles(m.TotalLatencyPercentile),
		ReportingHosts:                     1,
	}
	c.Group, c.ThreadPool = r.keys(key, p)
	if p != nil {
		c.CommandPropertyValues = commandPropertyValues(p)
	}
	if g, ok := m.AdaptiveGauges(); ok {
		c.CommandAdaptive = &CommandAdaptive{AdaptiveLimit: g.Limit, AdaptiveInflight: g.Inflight, AdaptiveQueue: g.Queued}
	}
	return c
}

func commandPropertyValues(p *config.CommandProperties) CommandPropertyValues {
	timeout := config.ExecutionTimeout.In(p).Get().Milliseconds()
	v := CommandPropertyValues{
		CircuitBreakerRequestVolumeThreshold:             config.CircuitBreakerRequestVolumeThreshold.In(p).Get(),
		CircuitBreakerSleepWindowInMilliseconds:          config.CircuitBreakerSleepWindow.In(p).Get().Milliseconds(),
		CircuitBreakerErrorThresholdPercentage:           config.CircuitBreakerErrorThresholdPercentage.In(p).Get(),
		CircuitBreakerForceOpen:                          config.CircuitBreakerForceOpen.In(p).Get(),
		CircuitBreakerForceClosed:                        config.CircuitBreakerForceClosed.In(p).Get(),
		CircuitBreakerEnabled:                            config.CircuitBreakerEnabled.In(p).Get(),
		ExecutionIsolationStrategy:                       config.ExecutionIsolationStrategy.In(p).Get().String(),
		ExecutionIsolationThreadTimeoutInMilliseconds:    timeout,
		ExecutionTimeoutInMilliseconds:                   timeout,
		ExecutionIsolationThreadInterruptOnTimeout:       config.InterruptOnTimeout.In(p).Get(),
		ExecutionIsolationSemaphoreMaxConcurrentRequests: config.ExecutionMaxConcurrentRequests.In(p).Get(),
		FallbackIsolationSemaphoreMaxConcurrentRequests:  config.FallbackMaxConcurrentRequests.In(p).Get(),
		MetricsRollingStatisticalWindowInMilliseconds:    config.RollingStatsWindow.In(p).Get().Milliseconds(),
		RequestCacheEnabled:                              config.RequestCacheEnabled.In(p).Get(),
		RequestLogEnabled:                                config.RequestLogEnabled.In(p).Get(),
		StreamCutsCountForHealth:                         config.StreamCutsCountForHealth.In(p).Get(),
	}
	if o := config.ThreadPoolKeyOverride.In(p).Get(); o != "" {
		v.ExecutionIsolationThreadPoolKeyOverride = &o
	}
	return v
}

func threadPool(m *metrics.ThreadPoolMetrics, p *config.ThreadPoolProperties, g metrics.ThreadPoolGauges) ThreadPool {
	t := ThreadPool{
		Name:                          m.Key(),
		CurrentActiveCount:            g.ActiveCount,
		CurrentCompletedTaskCount:     g.CompletedTaskCount,
		CurrentCorePoolSize:           g.CorePoolSize,
		CurrentLargestPoolSize:        g.LargestPoolSize,
		CurrentMaximumPoolSize:        g.MaximumPoolSize,
		CurrentPoolSize:               g.PoolSize,
		CurrentQueueSize:              g.QueueSize,
		CurrentTaskCount:              g.TaskCount,
		RollingCountThreadsExecuted:   m.RollingCount(metrics.Executed),
		RollingMaxActiveThreads:       m.RollingMaxActive(),
		RollingCountCommandRejections: m.RollingCount(metrics.Rejected),
		ReportingHosts:                1,
	}
	if p != nil {
		t.PropertyValueQueueSizeRejectionThreshold = config.ThreadPoolQueueSizeRejectionThreshold.In(p).Get()
		t.PropertyValueMetricsRollingStatisticalWindow = config.ThreadPoolRollingStatsWindow.In(p).Get().Milliseconds()
	}
	return t
}

func collapser(m *metrics.CollapserMetrics, p *config.CollapserProperties) Collapser {
	c := Collapser{
		Name:                           m.Key(),
		RollingCountRequestsBatched:    m.RollingCount(metrics.AddedToBatch),
		RollingCountBatches:            m.RollingCount(metrics.BatchExecuted),
		RollingCountResponsesFromCache: m.RollingCount(metrics.CollapserResponseFromCache),
		BatchSizeMean:                  int64(m.BatchSizeMean()),
		ReportingHosts:                 1,
	}
	for i, l := range BatchSizeLevels {
		c.BatchSize[i] = int64(math.Round(m.BatchSizePercentile(l)))
	}
	if p != nil {
		c.PropertyValueRequestCacheEnabled = config.CollapserRequestCacheEnabled.In(p).Get()
		c.PropertyValueMaxRequestsInBatch = maxRequestsInBatch(p)
		c.PropertyValueTimerDelayInMilliseconds = config.CollapserTimerDelay.In(p).Get().Milliseconds()
	}
	return c
}

// percentiles reads a latency distribution at PercentileLevels, rounded to milliseconds.
func percentiles(at func(p float64) time.Duration) Percentiles {
	var out Percentiles
	for i, l := range PercentileLevels {
		out[i] = (at(l) + time.Millisecond/2).Milliseconds()
	}
	return out
}

// gauges reads a pool's gauges from the isolation pool of the same key, else from the
// gauge function registered with its metrics.
func gauges(m *metrics.ThreadPoolMetrics, pools map[string]*isolation.Pool) metrics.ThreadPoolGauges {
	if p := pools[m.Key()]; p != nil {
		return p.Gauges()
	}
	return m.Gauges()
}

// keys returns a command's group and thread-pool keys (see Registries.CommandKeys).
func (r Registries) keys(command string, p *config.CommandProperties) (group, pool string) {
	if r.CommandKeys != nil {
		group, pool = r.CommandKeys(command)
	}
	if group == "" {
		group = command
	}
	if pool == "" && p != nil {
		pool = config.ThreadPoolKeyOverride.In(p).Get()
	}
	if pool == "" {
		pool = group
	}
	return group, pool
}

// pools indexes the isolation pools by key (nil without Pools).
func (r Registries) pools() map[string]*isolation.Pool {
	if r.Pools == nil {
		return nil
	}
	return index(r.Pools.Pools())
}

// props indexes the properties list returns from the Properties store (nil without one).
func props[P keyed](s *config.Store, list func(*config.Store) []P) map[string]P {
	if s == nil {
		return nil
	}
	return index(list(s))
}

type keyed interface{ Key() string }

func index[P keyed](all []P) map[string]P {
	m := make(map[string]P, len(all))
	for _, p := range all {
		m[p.Key()] = p
	}
	return m
}

// settings turns config settings into short name -> value.
func settings(all []config.Setting) map[string]string {
	m := make(map[string]string, len(all))
	for _, s := range all {
		m[s.Name] = s.Value
	}
	return m
}
