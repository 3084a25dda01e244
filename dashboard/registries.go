package dashboard

import (
	"math"
	"time"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Registries are the library's registries the three stream handlers read their objects
// from (NewStreamHandler, NewUtilizationHandler, NewConfigHandler). Every interval reads
// the current values (mostly atomic loads). Keys appear once the library has made their
// metrics (commands, thread pools and collapsers of Metrics) or properties (config
// stream); the only thing a read may create is the breaker of a command that has none
// yet (breaker.Registry.Get, with the command's own cached properties).
//
// A thread pool's gauges (active, queued, pool size...) are those its metrics carry
// (metrics.ThreadPoolMetrics.Gauges: the command package registers each pool's).
//
// Nil fields leave their part out: no Metrics, no /hystrix.stream or utilization
// objects; no Properties, zero property values and an empty config stream; no Breakers,
// isCircuitBreakerOpen false. DefaultRegistries fills all three with the process-wide
// registries.
type Registries struct {
	Properties *config.Store
	Metrics    *metrics.Registry
	Breakers   *breaker.Registry
	// CommandKeys returns the group and thread-pool keys of a command key (the command
	// package knows them). Empty results, or a nil CommandKeys, fall back to the command
	// key as group and to threadPoolKeyOverride, else the group, as thread pool.
	CommandKeys func(command string) (group, threadPool string)
}

// DefaultRegistries returns Registries over config.Default, metrics.Default and
// breaker.Default: those of command.Default(). Set CommandKeys to
// command.Default().CommandKeys as well, or the frames report each command key as its
// group and thread pool.
func DefaultRegistries() Registries {
	return Registries{Properties: config.Default(), Metrics: metrics.Default(), Breakers: breaker.Default()}
}

// snapshot returns one HystrixCommand per command key of Metrics, one HystrixThreadPool
// per thread-pool key and one HystrixCollapser per collapser key, each sorted by key.
// Latency percentiles are rounded to whole milliseconds (they come from histograms with
// 1.6 % relative accuracy); means are truncated, as Hystrix does.
func (r Registries) snapshot() wire.Snapshot {
	if r.Metrics == nil {
		return wire.Snapshot{}
	}
	var s wire.Snapshot
	cmdProps := props(r.Properties, (*config.Store).Commands)
	for _, m := range r.Metrics.Commands() {
		s.Commands = append(s.Commands, r.command(m, cmdProps[m.Key()]))
	}
	poolProps := props(r.Properties, (*config.Store).ThreadPools)
	for _, m := range r.Metrics.ThreadPools() {
		s.ThreadPools = append(s.ThreadPools, threadPool(m, poolProps[m.Key()], m.Gauges()))
	}
	colProps := props(r.Properties, (*config.Store).Collapsers)
	for _, m := range r.Metrics.Collapsers() {
		s.Collapsers = append(s.Collapsers, collapser(m, colProps[m.Key()]))
	}
	return s
}

// utilization returns the live concurrency of every command key and the load of every
// thread pool of Metrics.
func (r Registries) utilization() wire.Utilization {
	if r.Metrics == nil {
		return wire.Utilization{}
	}
	u := wire.Utilization{Commands: map[string]wire.CommandUtilization{}, ThreadPools: map[string]wire.ThreadPoolUtilization{}}
	for _, m := range r.Metrics.Commands() {
		u.Commands[m.Key()] = wire.CommandUtilization{ActiveCount: m.CurrentConcurrency()}
	}
	for _, m := range r.Metrics.ThreadPools() {
		g := m.Gauges()
		u.ThreadPools[m.Key()] = wire.ThreadPoolUtilization{ActiveCount: g.ActiveCount, QueueSize: g.QueueSize,
			CorePoolSize: g.CorePoolSize, PoolSize: g.PoolSize,
			Utilization: utilizationPercent(g.ActiveCount, g.MaximumPoolSize)}
	}
	return u
}

// config returns the configuration of every command, thread-pool and collapser key of
// the Properties store, with current values.
func (r Registries) config() wire.Config {
	if r.Properties == nil {
		return wire.Config{}
	}
	c := wire.Config{Commands: map[string]wire.CommandConfig{}, ThreadPools: map[string]wire.ThreadPoolConfig{},
		Collapsers: map[string]wire.CollapserConfig{}}
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

func (r Registries) commandConfig(p *config.CommandProperties) wire.CommandConfig {
	c := wire.CommandConfig{
		Execution: wire.ExecutionConfig{
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
		Metrics: wire.CommandMetricsConfig{
			HealthBucketSizeInMs: config.HealthSnapshotInterval.In(p).Get().Milliseconds(),
			MetricsConfig: metricsConfig(config.RollingPercentileWindow.In(p).Get(), config.RollingPercentileBuckets.In(p).Get(),
				config.RollingPercentileEnabled.In(p).Get(), config.RollingStatsWindow.In(p).Get(), config.RollingStatsBuckets.In(p).Get()),
		},
		CircuitBreaker: wire.CircuitBreakerConfig{
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

func threadPoolConfig(p *config.ThreadPoolProperties) wire.ThreadPoolConfig {
	window, buckets := config.ThreadPoolRollingStatsWindow.In(p).Get(), config.ThreadPoolRollingStatsBuckets.In(p).Get()
	return wire.ThreadPoolConfig{
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

func collapserConfig(p *config.CollapserProperties) wire.CollapserConfig {
	return wire.CollapserConfig{
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
func metricsConfig(pctWindow time.Duration, pctBuckets int, pctEnabled bool, window time.Duration, buckets int) wire.MetricsConfig {
	return wire.MetricsConfig{
		PercentileBucketSizeInMilliseconds: (pctWindow / time.Duration(pctBuckets)).Milliseconds(),
		PercentileBucketCount:              pctBuckets,
		PercentileEnabled:                  pctEnabled,
		CounterBucketSizeInMilliseconds:    (window / time.Duration(buckets)).Milliseconds(),
		CounterBucketCount:                 buckets,
	}
}

// maxRequestsInBatch is the batch limit as Hystrix reports it: wire.UnboundedBatch for none.
func maxRequestsInBatch(p *config.CollapserProperties) int {
	if n := config.CollapserMaxRequestsInBatch.In(p).Get(); n > 0 {
		return n
	}
	return wire.UnboundedBatch
}

func (r Registries) command(m *metrics.CommandMetrics, p *config.CommandProperties) wire.Command {
	key := m.Key()
	h := m.HealthCounts()
	c := wire.Command{
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
		c.CommandAdaptive = &wire.CommandAdaptive{AdaptiveLimit: g.Limit, AdaptiveInflight: g.Inflight, AdaptiveQueue: g.Queued}
	}
	return c
}

func commandPropertyValues(p *config.CommandProperties) wire.CommandPropertyValues {
	timeout := config.ExecutionTimeout.In(p).Get().Milliseconds()
	v := wire.CommandPropertyValues{
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

func threadPool(m *metrics.ThreadPoolMetrics, p *config.ThreadPoolProperties, g metrics.ThreadPoolGauges) wire.ThreadPool {
	t := wire.ThreadPool{
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

func collapser(m *metrics.CollapserMetrics, p *config.CollapserProperties) wire.Collapser {
	c := wire.Collapser{
		Name:                           m.Key(),
		RollingCountRequestsBatched:    m.RollingCount(metrics.AddedToBatch),
		RollingCountBatches:            m.RollingCount(metrics.BatchExecuted),
		RollingCountResponsesFromCache: m.RollingCount(metrics.CollapserResponseFromCache),
		BatchSizeMean:                  int64(m.BatchSizeMean()),
		ReportingHosts:                 1,
	}
	for i, l := range wire.BatchSizeLevels {
		c.BatchSize[i] = int64(math.Round(m.BatchSizePercentile(l)))
	}
	if p != nil {
		c.PropertyValueRequestCacheEnabled = config.CollapserRequestCacheEnabled.In(p).Get()
		c.PropertyValueMaxRequestsInBatch = maxRequestsInBatch(p)
		c.PropertyValueTimerDelayInMilliseconds = config.CollapserTimerDelay.In(p).Get().Milliseconds()
	}
	return c
}

// percentiles reads a latency distribution at wire.PercentileLevels, rounded to milliseconds.
func percentiles(at func(p float64) time.Duration) wire.Percentiles {
	var out wire.Percentiles
	for i, l := range wire.PercentileLevels {
		out[i] = (at(l) + time.Millisecond/2).Milliseconds()
	}
	return out
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

// utilizationPercent returns active as a whole percentage of maximum (0 when maximum is
// not positive), capped at 100.
func utilizationPercent(active, maximum int) int {
	if maximum <= 0 {
		return 0
	}
	return min(active*100/maximum, 100)
}
