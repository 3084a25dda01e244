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
//	                          label sets per key ◀─ Labels, the exporter's, once each
//	  ◀─ emit(metric, label set, value) per sample
//
// A Reader keeps, per key, its breaker transition counts (the breakers do not keep
// them) and its label sets in the exporter's form (Prometheus label pairs, an
// OpenTelemetry attribute set), made the first time they are read: a read allocates
// nothing per sample. The counts go when the key is evicted, the label sets at the first
// read that no longer finds it, so an evicted key's series disappear with it. Reading
// creates no key and adds no work to executions.
//
// Names are dotted and without prefix ("command.events"); each exporter applies its own
// convention: Prometheus hystrix_command_events_total, OpenTelemetry
// hystrix.command.events with unit {event}.
package telemetry
