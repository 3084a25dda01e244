// Package hystrixprom exports the metrics of a command.Runtime to Prometheus: a
// prometheus.Collector that reads every command key, thread pool and collapser at scrape
// time. It lives in a module of its own, so a program that does not import it links no
// client_golang.
//
//	c := hystrixprom.New(command.Default())
//	defer c.Close()
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(c)
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// # Metrics
//
// Labels: command, group and thread_pool on every command metric (from
// command.Runtime.CommandKeys), thread_pool on pool metrics, collapser on collapser
// metrics.
//
//	hystrix_command_events_total{event}              counter: success, failure, timeout,
//	                                                  short_circuited, fallback_success, ...
//	                                                  (Hystrix event types, lower case,
//	                                                  and adaptive_rejected)
//	hystrix_command_execution_latency_seconds{percentile}  gauge: run latency
//	hystrix_command_total_latency_seconds{percentile}      gauge: queue wait + run + fallback
//	hystrix_command_execution_latency_mean_seconds, hystrix_command_total_latency_mean_seconds
//	hystrix_command_concurrent_executions             gauge: running now
//	hystrix_command_max_concurrent_executions         gauge: highest over rollingStats window
//	hystrix_command_health_requests, _health_errors   gauge: the breaker's health window
//	hystrix_command_adaptive_limit, _adaptive_inflight, _adaptive_queued  gauges: the
//	                                                  adaptive limit (ADAPTIVE keys only)
//	hystrix_circuit_breaker_state{state}              gauge: 1 for closed, open or half_open
//	hystrix_circuit_breaker_transitions_total{from,to} counter
//	hystrix_thread_pool_events_total{event}           counter: executed, rejected
//	hystrix_thread_pool_active_threads, _max_active_threads, _queued_tasks, _threads,
//	  _largest_threads, _core_threads, _max_threads   gauges
//	hystrix_thread_pool_completed_tasks_total, hystrix_thread_pool_tasks_total  counters
//	hystrix_collapser_events_total{event}             counter: batch_executed,
//	                                                  added_to_batch, response_from_cache
//	hystrix_collapser_batch_size{percentile}, hystrix_collapser_batch_size_mean  gauges
//
// Counters are the library's cumulative counts, exact, so rate() and increase() work; a
// key's counters start again from 0 when the key is evicted for idleness and comes back
// (Prometheus handles that as a counter reset). The six primary outcomes (success,
// failure, timeout, short_circuited, thread_pool_rejected, semaphore_rejected) are
// always there, so error-rate and short-circuit queries find a series for every key; the
// other event types (the stream ones included: emit, whose rate is items/s,
// mid_stream_failure, stream_resumed, establish_timeout, idle_timeout) and each breaker
// transition (counted from the moment the Collector is created) appear with their first
// occurrence, because most stay at zero for ever and every series costs every scrape. A
// stream's lifetime is its total latency.
//
// # Latency: percentile gauges, not a histogram or a summary
//
// The library keeps, per key, a log-linear latency histogram per bucket of the
// rollingPercentile window (60 s by default), from which it reads any percentile within
// 1.6 % and the exact mean. A Prometheus histogram needs cumulative per-bucket counts and
// a summary needs cumulative _count and _sum; the library keeps neither, and keeping them
// would be a second bookkeeping on every execution, which this package refuses to add.
// Publishing the window's percentiles as a summary with invented _count and _sum would
// break rate() on them, and promtool rejects a quantile label on anything but a summary.
// So they are gauges with a percentile label (50, 90, 99, 99.5) next to a mean: the
// figures the Hystrix dashboard shows, over the same window. As with summary quantiles,
// do not average them across instances; take the max, or look per instance.
//
// # Cardinality and cost
//
// Each scrape lists the keys the registries hold now, so the series of a key evicted for
// idleness disappear with it. A command key has 23 series plus one per other event type
// it has seen and one per breaker transition it has made (a key with fallbacks: 24); a
// thread pool has 11, a collapser 8.
//
// What the Collector keeps of a key is made at its first scrape: the label pairs of its
// own labels (command, group, thread_pool) and, per label set of its series, a slice of
// them in name order with the shared pairs of the other labels (event, percentile,
// state, from, to: one pair per value for all keys), about 1 KB a key. It is dropped at
// the first scrape that no longer finds the key; the breaker transition counts go when
// the key is evicted. A later scrape reads atomics and precomputed percentiles, sends
// series in the order the registry sorts them into, and allocates its samples in one
// chunk per kind (gauge, counter), sized from the scrape before: nothing per series.
//
// The Collector's cost is linear in the series: BenchmarkCollect, a scrape after the
// first of 100, 1,000 and 4,000 keys of 24 series (and 10 pools of 11), takes 250 to 470
// ns and 85 to 100 bytes per series (about 10 us and 2.3 KB per key; 1,000 keys: 11 ms,
// 2.3 MB, 19 allocations) on a 2-core AMD EPYC shared with other jobs (go1.26.8, load
// average 1 to 3.5, 2026-12-02); a key's first scrape adds about 92 allocations and 7 KB.
// The rest of a scrape is the client library's, per series, whatever the collector:
// BenchmarkScrape, a whole scrape of 1,000 keys (Collector, registry, text encoding,
// gzip), takes 110 to 120 ms, 8.7 MB and 48,900 allocations there; a collector that sends
// the same 24,110 samples ready-made, 94 ms, 6.2 MB and 48,900 allocations. Of those, the
// registry makes a dto.Metric and a hash per series (36 ms, 5.1 MB), the text encoder
// writes 2.7 MB (32 ms) and gzip compresses them (21 ms). Executions do no work for the
// Collector.
package hystrixprom
