// Package telemetry is the one catalogue of metrics that the Prometheus exporter
// (contrib/hystrixprom) and the OpenTelemetry exporter (contrib/hystrixotel) publish,
// and the Reader that reads it from a command.Runtime at collection time.
//
//	exporter (scrape / OTel collection)
//	  └─ Reader.Read(emit) ─▶ metrics.Registry: Commands, ThreadPools, Collapsers
//	                             (cumulative counts, rolling percentiles and means,
//	                              concurrency, health counts, pool gauges: atomic loads)
//	                          breaker.Registry.Lookup(key).State()
//	                          transition counts ◀─ breaker.Registry.OnStateChange
//	  ◀─ emit(metric, value, label values) per sample
//
// Nothing is cached per key but the breaker transition counts (the breakers do not keep
// them), and those go when the metrics registry evicts the key, so an evicted key's
// series disappear with it. Reading creates nothing and adds no work to executions.
//
// Names are dotted and without prefix ("command.events"); each exporter applies its own
// convention: Prometheus hystrix_command_events_total, OpenTelemetry
// hystrix.command.events with unit {event}.
package telemetry
