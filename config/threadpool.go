package config

import (
	"fmt"
	"time"
)

// ThreadPoolProperties are the properties of one thread-pool key, resolved as
// hystrix.threadpool.<POOL>.X, then the value set in code, then
// hystrix.threadpool.default.X, then the built-in default.
type ThreadPoolProperties struct{ k keyState }

type pool = ThreadPoolProperties

// The thread-pool properties of Hystrix (read one with its Key:
// config.ThreadPoolCoreSize.In(p).Get()).
var (
	// ThreadPoolCoreSize is coreSize = 10 (>= 0).
	ThreadPoolCoreSize = key(threadPoolScope, "coreSize", 10, intCodec, atLeast(0))
	// ThreadPoolMaximumSize is maximumSize = 10 (>= 0); used only when
	// AllowMaximumSizeToDivergeFromCoreSize is true (see effectiveMaximumSize).
	ThreadPoolMaximumSize = key(threadPoolScope, "maximumSize", 10, intCodec, atLeast(0))
	// ThreadPoolAllowMaximumSizeToDivergeFromCoreSize is allowMaximumSizeToDivergeFromCoreSize
	// = false.
	ThreadPoolAllowMaximumSizeToDivergeFromCoreSize = key(threadPoolScope, "allowMaximumSizeToDivergeFromCoreSize", false, boolCodec, nil)
	// ThreadPoolMaxQueueSize is maxQueueSize = -1 (>= -1; <= 0 means no queue: hand-off only).
	ThreadPoolMaxQueueSize = key(threadPoolScope, "maxQueueSize", -1, intCodec, atLeast(-1))
	// ThreadPoolQueueSizeRejectionThreshold is queueSizeRejectionThreshold = 5 (>= 0); only
	// matters when MaxQueueSize > 0.
	ThreadPoolQueueSizeRejectionThreshold = key(threadPoolScope, "queueSizeRejectionThreshold", 5, intCodec, atLeast(0))
	// ThreadPoolKeepAlive is keepAliveTimeMinutes = 1 (>= 0).
	ThreadPoolKeepAlive = key(threadPoolScope, "keepAliveTimeMinutes", time.Minute, minutesCodec, nonNegative)
	// ThreadPoolRollingStatsWindow is metrics.rollingStats.timeInMilliseconds = 10000 (> 0, a
	// multiple of RollingStatsBuckets).
	ThreadPoolRollingStatsWindow = key(threadPoolScope, "metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive)
	// ThreadPoolRollingStatsBuckets is metrics.rollingStats.numBuckets = 10 (>= 1).
	ThreadPoolRollingStatsBuckets = key(threadPoolScope, "metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1))
)

// threadPoolScope is the table of every thread-pool property, shared by every pool key.
// threadPoolScope is the table of every thread-pool property, shared by every thread-pool key; the
// properties join it as they are declared.
var threadPoolScope = newScope("threadpool", "thread-pool", func(o *pool) *keyState { return &o.k })

func init() {
	sc := threadPoolScope
	sc.checks = []check[pool]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		poolHasWorkers(sc),
	}
}

// effectiveMaximumSize is max(core, maximum) when allow, else core (as Hystrix).
func effectiveMaximumSize(core, maximum int, allow bool) int {
	if allow {
		return max(core, maximum)
	}
	return core
}

// poolHasWorkers requires an effective maximum pool size of at least 1.
func poolHasWorkers(sc *scope[pool]) check[pool] {
	core, maximum := sc.index("coreSize"), sc.index("maximumSize")
	allow := sc.index("allowMaximumSizeToDivergeFromCoreSize")
	return check[pool]{fields: []int{core, maximum, allow}, run: func(r *resolution[pool]) *PropertyError {
		c, m, a := candValue[int](r, core), candValue[int](r, maximum), candValue[bool](r, allow)
		if effectiveMaximumSize(c, m, a) >= 1 {
			return nil
		}
		return &PropertyError{Name: r.k.name("coreSize"), Value: intCodec.format(c),
			Err: fmt.Errorf("effective maximum pool size is 0 (%s=%d, %s=%t)",
				r.k.name("maximumSize"), m, r.k.name("allowMaximumSizeToDivergeFromCoreSize"), a)}
	}}
}

// Key returns the thread-pool key.
func (p *ThreadPoolProperties) Key() string { return p.k.key }

// Settings lists every thread-pool property with its full Hystrix name and current value.
func (p *ThreadPoolProperties) Settings() []Setting { return threadPoolScope.settings(p) }

func (p *ThreadPoolProperties) state() *keyState { return &p.k }

func (p *ThreadPoolProperties) refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	return threadPoolScope.refresh(p, lookup, scratch)
}
