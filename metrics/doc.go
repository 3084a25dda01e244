// Package metrics records what commands, thread pools and collapsers do and turns it into
// the rolling statistics Hystrix exposes: the health counts that trip the circuit breaker,
// rolling and cumulative event counts, latency percentiles and means, concurrency, and the
// thread-pool and collapser figures of the dashboard stream. It never loses an event.
//
// Main types: EventType (with ThreadPoolEventType and CollapserEventType), EventCounts and
// ExecutionResult (small immutable values describing one execution), HealthCounts, and
// Registry, which hands out CommandMetrics, ThreadPoolMetrics and CollapserMetrics per key.
//
// # Data flow
//
// As in Hystrix, the windowed reduce happens where the event is, on the caller; only
// closed buckets travel on, into scans that keep the windows:
//
//	events: MarkStart / MarkComplete (any goroutine: a few atomic adds, no lock, no allocation)
//	    |  counts  -> one stripe of the key's monotonic counters, picked at random per call
//	    |  latency -> a bin of the key's log-linear histograms
//	    |  feeds   -> a Completion offered to each completion subscription (none: one load)
//	    v
//	window(bucket) reduce: at each boundary of a window's width, the roll cuts the closed
//	    |  bucket = counters now - counters at the last cut (histograms: bins swapped out)
//	    v
//	scan(last N): the window's ring takes the newest bucket and drops the oldest
//	    |  health      -> HealthCounts (atomic pointer) -> OnHealthCounts -> breaker
//	    |                 -> a HealthSnapshot offered to each health subscription
//	    |  rollingStats -> rolling and cumulative counts, rolling max concurrency (atomics)
//	    |                 -> a CountSnapshot offered to each count subscription
//	    |  percentile  -> immutable view: standard percentiles, exact means (atomic pointer)
//	    v
//	readers: HealthCounts, RollingCount, CumulativeCount, ...Percentile: one atomic load
//
// Counters are monotonic, never reset: a completion recorded by a caller that was
// descheduled across a boundary simply lands in the next bucket, and each of a key's
// windows cuts the same counters at its own boundaries. There is no hand-off that can
// overflow, nothing to drop and nothing to count as dropped. Stripes (twice GOMAXPROCS,
// at most 2 KB a key: 8 stripes of 256 B since the 29th event type, each on cache lines
// of its own) keep parallel callers off each other's lines. The histograms are the exception to monotonic: a cumulative histogram would need
// a copy of every bin at the last cut to take differences against, twice the memory, so
// the roll empties each bin with one atomic Swap instead; a concurrent add lands before
// the swap (this bucket) or after it (the next), never nowhere.
//
// # The roll
//
// A Registry owns no goroutine. One clock timer fires at the next boundary due among the
// active keys (or the next eviction sweep); its callback rolls. Keys with a window of the
// same width form a group: buckets are aligned to the clock, so a group closes its keys'
// buckets together. A key becomes active on its first record after a quiet spell (the
// caller hands it to the roll) and leaves its groups once nothing is in flight, its
// windows are empty and nothing was recorded since the last cut, so an idle key costs the
// roll nothing and the work per boundary is proportional to the keys with traffic. Empty
// buckets are closed too while a key is active, so counts age out when traffic stops. A
// roll that runs late closes the buckets it missed as empty and puts what the counters
// gained into the last one. A key idle for longer than WithIdleTimeout is evicted by a
// sweep on a goroutine of its own (never on the roll: evicting many keys cannot delay the
// snapshots of live ones) and comes back fresh on next use.
//
// The scans are plain Go, not RxGo operators: a Scan per key would be a goroutine and a
// channel per key (library goroutines must not grow with the keys), a registry-wide RxGo
// chain would put channel hand-offs between the clock and the breaker that Flush and the
// fake clock would have to wait out, and RxGo's time windows skip empty windows (counts
// would never age out). At ten boundaries a second the cost of either would not matter;
// their goroutines and non-determinism would.
//
// # Feeds
//
// The event stream can be observed: Registry.Completions, HealthSnapshots and
// CountSnapshots return it as hot rxgo.Observables (Feed), for every command key or for
// one (ForKey), that compose with every RxGo operator. A publisher (MarkComplete, the
// roll) never waits for a subscriber:
//
//	publisher: load the registry's subscriber list (one atomic pointer)
//	    |  nil: nothing else happens
//	    |  else, per subscription following the key: a non-blocking send (none while
//	    |  the buffer is flagged full)
//	    v
//	subscription's buffer (bounded, WithFeedBuffer; full: the Feed's Missed + 1)
//	    |  its producer goroutine (rxgo.Defer): select next <- item, the subscriber's
//	    |  context, Close; when either ends: unregister, count what the buffer holds
//	    v
//	subscriber: Observe, or any RxGo operator on the Feed
//
// Every subscription (each Observe, and each of an operator that subscribes twice) has
// a buffer and a goroutine of its own, registered by its producer and gone when the
// subscriber's context ends or the registry closes (Close waits for them). A publisher
// never waits: a full buffer sets a flag, and while it is set a publisher only adds one
// to the Feed's misses, on the stripe the caller's counters took (striped like a key's
// counters, so that many cores do not share one line). What the subscribers received
// plus the Feed's Missed is every item offered to them, exactly: when a subscription
// ends, what its buffer holds is taken back and counted, and so is what a publisher that
// still saw it sends afterwards. Items are offered from the moment the producer has
// registered (RxGo starts it on a goroutine after Observe returns), not before. Health
// and count snapshots are offered by the roll after it cut the key's windows, so a
// Feed follows every key, present and future, through evictions. RxGo's own hot sources
// do not fit: FromEventSource loses events and lets one slow subscriber stall the rest,
// and Connect has no unsubscribe.
//
// # Windows and properties
//
// As in Hystrix, only closed buckets count: HealthCounts sums the last
// rollingStats.timeInMilliseconds / healthSnapshot.intervalInMilliseconds health buckets,
// rolling counts the last rollingStats.numBuckets buckets, latencies the last
// rollingPercentile.numBuckets buckets. Every width is honoured as configured, down to
// the 1 ms the properties can express: the roll wakes at each key's own boundaries.
// Window sizes are read when a key's metrics are created and hold for their life, as
// Hystrix's streams do: a change takes effect for keys created later or after an
// eviction. rollingPercentile.enabled is read on every completion.
// rollingPercentile.bucketSize is not needed: a histogram keeps every sample in bounded
// memory instead of Hystrix's last 100.
//
// CommandMetrics.LiveHealthCounts adds the bucket in progress to the closed window,
// exactly, without a lock: the breaker reads it on a failure when
// circuitBreaker.evaluateOnFailure is set.
//
// # Percentiles and memory
//
// A histogram bin is 1/32 of its power of two wide, and a percentile reports the bin's
// midpoint: within 1.6 % of a latency really recorded at that rank (exact below 64 ns);
// values are clamped to 2^42 ns (73 minutes). Means are exact. All integer arithmetic, the
// same on 32-bit platforms. A key holds its counters (twice as many stripes as processors,
// at most 2 KB in all: TestCountersOfAKeyFitIn2KB), 128 bytes per power of two its
// latencies span per histogram, its rings, and per closed percentile bucket 4 bytes per
// occupied bin.
//
// # Tests
//
// On a clock.Fake the timer fires inside Advance, so every boundary passed is rolled when
// Advance returns. Registry.Flush rolls every boundary due at the clock's time on the
// calling goroutine and waits for a running eviction sweep.
package metrics
