// Package metrics records what commands, thread pools and collapsers do and turns it into
// the rolling statistics Hystrix exposes: the health counts that trip the circuit breaker,
// rolling and cumulative event counts, latency percentiles and means, concurrency, and the
// thread-pool and collapser figures of the dashboard stream.
//
// Main types: EventType (with ThreadPoolEventType and CollapserEventType), EventCounts and
// ExecutionResult (small immutable values describing one execution), HealthCounts, and
// Registry, which hands out CommandMetrics, ThreadPoolMetrics and CollapserMetrics per key.
//
// # Data flow
//
// Every key of a Registry shares one event stream and one consumer:
//
//	MarkStart / MarkComplete (any goroutine; no lock, no allocation)
//	      | event{*series, kind, EventCounts, latencies}   (a ~56-byte value)
//	      v
//	observable.Bus  -- one lock-free ring (observable.Queue); full -> Registry.Dropped()++, logged
//	      v
//	observable.Buckets(resolution = 100ms, clock-aligned, empty buckets included)
//	      |  per event, plain Go on the consumer goroutine: fold into the key's keyTick
//	      |  (counts, health, max concurrency) and its open latency sketches
//	      v  one *tick per bucket: the keyTicks of the keys that had events
//	rxgo ForEach (roll goroutine), per tick:
//	      |  fold keyTicks into each key's windows, cumulative counts (exact atomics)
//	      |  at each key's own boundaries (multiples of the resolution):
//	      |    health bucket  -> HealthCounts snapshot (atomic pointer) -> OnHealthCounts
//	      |    stats bucket   -> rolling counts and rolling max concurrency (atomics)
//	      |    percentile bkt -> frozen DDSketch bytes -> immutable view (atomic pointer)
//	      v
//	readers: HealthCounts, RollingCount, ...Percentile: atomic loads, no lock
//
// Only keys with something in their windows are visited at a tick; a key whose windows
// emptied leaves the active set (its snapshots read zero), and a key idle for longer than
// WithIdleTimeout is evicted and comes back fresh on next use. The goroutines are the
// same two (plus RxGo's per-stage goroutine) whatever the number of keys; Close stops them.
//
// # Windows and properties
//
// As in Hystrix, only closed buckets count: HealthCounts sums the last
// rollingStats.timeInMilliseconds / healthSnapshot.intervalInMilliseconds health buckets,
// rolling counts the last rollingStats.numBuckets buckets, latencies the last
// rollingPercentile.numBuckets buckets. Empty buckets are closed too, so counts age out
// when a key goes quiet. Window sizes (rollingStats.*, rollingPercentile.timeInMilliseconds
// and numBuckets, healthSnapshot.intervalInMilliseconds) are read when a key's metrics are
// created and hold for their life, as Hystrix's streams do: a change takes effect for keys
// created later or after an eviction. rollingPercentile.enabled is read on every
// completion. rollingPercentile.bucketSize is not needed: a sketch keeps every sample in
// bounded memory instead of Hystrix's last 100.
//
// Latencies use DDSketch (github.com/DataDog/sketches-go) with 1% relative accuracy: the
// open bucket is a sketch with a buffered paginated store (a few bytes per sample while
// sparse, 32-bin pages when dense, values clamped to one hour so the range is bounded);
// a closed bucket is kept only as the sketch's compact encoding; the window's merged
// sketch is built on first read. Means are exact.
//
// # Tests
//
// Registry.Flush waits until everything published before it is folded in and every bucket
// due at the clock's current time is published, so tests on clock.Fake advance the clock
// and Flush instead of sleeping.
package metrics
