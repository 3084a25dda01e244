// Package hystrixprom exports the metrics of a command.Runtime to Prometheus, every
// command key, thread pool and collapser read at scrape time, in two ways: a Handler
// that serves /metrics itself, and a prometheus.Collector for a prometheus.Registry.
// Both publish the same families, names, help, types, labels and values, from the one
// catalogue (listed under Metrics below). The package lives in a module of its own, so a
// program that does not import it links no client_golang.
//
//	reg := prometheus.NewRegistry() // the program's other metrics, if any
//	reg.MustRegister(collectors.NewGoCollector())
//	h := hystrixprom.NewHandler(command.Default(), hystrixprom.HandlerOpts{Gatherer: reg})
//	defer h.Close()
//	http.Handle("/metrics", h)
//
// # Handler or Collector
//
// Serve /metrics with the Handler: it writes the Prometheus text format (0.0.4) itself,
// gzipped (gzip.BestSpeed) when the scraper accepts it, and then the families of the
// optional Gatherer through expfmt's encoder, at client_golang's cost for those (a
// registry with the Go collector adds about 0.4 ms, 73 KB and 435 allocations). A scrape
// costs about 7 us of CPU per command key, gzip included, and allocates 30 to 70 bytes
// per key in a few slices (see Cardinality and cost): a 1,000-key scrape, about 6.5 ms
// and 30 KB. Use the Collector when the metrics must go through a prometheus.Registry (a
// Pusher, a registry that another library serves, the protobuf or OpenMetrics formats):
// client_golang then makes a dto.Metric and a hash per series, about 65 us of CPU, 8 KB
// and 49 allocations per key (1,000 keys: about 65 ms, 8.3 MB, 48,900 allocations).
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
//	                                                  (every event type, lower case:
//	                                                  Hystrix's and rxhystrix's own)
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
// thread pool has 11, a collapser 8. Executions do no work for either exporter.
//
// What an exporter keeps of a key is made at its first scrape and dropped at the first
// scrape that no longer finds it (the breaker transition counts go when the key is
// evicted): the Handler keeps the text of each label set of the key's series,
// {command="...",event="...",...} escaped and in name order, about 1.5 KB a key; the
// Collector keeps the label pairs of each set, about 1 KB a key. A key's first scrape
// costs about 60 allocations and 5 KB for the Handler, 92 and 7 KB for the Collector.
// A later scrape reads atomics and precomputed percentiles. The Handler appends each
// sample as a line (its name, the label text, the value by strconv) into a buffer per
// family, and writes the buffers out in name order; it keeps the buffers and gzip
// writers of up to two scrapes at once for the next ones (not in a sync.Pool, which a
// garbage collection between two scrapes empties): about 2.7 MB of text and 1 MB of
// gzip state for 1,000 keys. The Collector sends samples made in one chunk per kind
// (gauge, counter), sized from the scrape before.
//
// Measured in this package on a 2-core AMD EPYC (Turin) VM shared with other jobs (load
// average 11 to 17, go1.26, 2026-12-02), medians of 5 interleaved runs of
// `go test -run '^$' -bench 'Scrape$|Handler$|GzipLevel' -benchmem`, a scrape after the
// first, its response to a writer that keeps nothing. CPU is the process's user and
// system time per scrape, which other jobs' load inflates less than the wall-clock time
// (the latter in parentheses):
//
//	1,000 keys (24,110 series)  gzip: CPU (wall)  B/op     allocs  plain: CPU (wall)  B/op     allocs
//	Collector + registry        66.5 (123) ms     8.34 MB  48,921  43.1 (73) ms       8.00 MB  48,909
//	Handler                     6.4 (12) ms       30 KB    48      2.1 (3.8) ms       30 KB    47
//
// The Handler is 0.07 to 0.13 times the registry's CPU with gzip, 0.03 to 0.07 without,
// run by run. Its cost is linear in the keys (BenchmarkHandler, gzip): 6.8 us of CPU
// per key at 100 and at 1,000 keys, 7.4 us at 10,000; 7 KB, 30 KB and 396 KB per scrape
// (the key lists and their sort), 45 to 55 allocations. Of a 1,000-key scrape, gzip
// takes about two thirds: 2.65 MB of text compress to 117 KB at gzip.BestSpeed, to 86 KB
// at gzip.DefaultCompression in twice the time (BenchmarkGzipLevel: 6.5 and 13.6 ms of
// CPU); reading the registries and writing the text take the rest. The Collector's own
// part (BenchmarkCollect, samples to a channel) is 250 to 470 ns per series, 10 us per
// key.
package hystrixprom
