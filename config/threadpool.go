package config

import (
	"fmt"
	"time"
)

// ThreadPoolProperties are the properties of one thread-pool key, resolved as
// hystrix.threadpool.<POOL>.X, then the value set in code, then
// hystrix.threadpool.default.X, then the built-in default.
type ThreadPoolProperties struct {
	// CoreSize: coreSize = 10 (>= 0).
	CoreSize *Property[int]
	// MaximumSize: maximumSize = 10 (>= 0); used only when
	// AllowMaximumSizeToDivergeFromCoreSize is true (see EffectiveMaximumSize).
	MaximumSize *Property[int]
	// AllowMaximumSizeToDivergeFromCoreSize: allowMaximumSizeToDivergeFromCoreSize = false.
	AllowMaximumSizeToDivergeFromCoreSize *Property[bool]
	// MaxQueueSize: maxQueueSize = -1 (>= -1; <= 0 means no queue: hand-off only).
	MaxQueueSize *Property[int]
	// QueueSizeRejectionThreshold: queueSizeRejectionThreshold = 5 (>= 0); only matters
	// when MaxQueueSize > 0.
	QueueSizeRejectionThreshold *Property[int]
	// KeepAlive: keepAliveTimeMinutes = 1 (>= 0).
	KeepAlive *Property[time.Duration]
	// RollingStatsWindow: metrics.rollingStats.timeInMilliseconds = 10000 (> 0, a multiple
	// of RollingStatsBuckets).
	RollingStatsWindow *Property[time.Duration]
	// RollingStatsBuckets: metrics.rollingStats.numBuckets = 10 (>= 1).
	RollingStatsBuckets *Property[int]

	k keyState
}

type pool = ThreadPoolProperties

// The Keys of the thread-pool properties: ThreadPool and the name of the field of
// ThreadPoolProperties they set; the fields give defaults and ranges.
var (
	// ThreadPoolCoreSize is coreSize.
	ThreadPoolCoreSize = key("coreSize", 10, intCodec, atLeast(0),
		func(p *pool) **Property[int] { return &p.CoreSize })
	// ThreadPoolMaximumSize is maximumSize.
	ThreadPoolMaximumSize = key("maximumSize", 10, intCodec, atLeast(0),
		func(p *pool) **Property[int] { return &p.MaximumSize })
	// ThreadPoolAllowMaximumSizeToDivergeFromCoreSize is allowMaximumSizeToDivergeFromCoreSize.
	ThreadPoolAllowMaximumSizeToDivergeFromCoreSize = key("allowMaximumSizeToDivergeFromCoreSize", false, boolCodec, nil,
		func(p *pool) **Property[bool] { return &p.AllowMaximumSizeToDivergeFromCoreSize })
	// ThreadPoolMaxQueueSize is maxQueueSize.
	ThreadPoolMaxQueueSize = key("maxQueueSize", -1, intCodec, atLeast(-1),
		func(p *pool) **Property[int] { return &p.MaxQueueSize })
	// ThreadPoolQueueSizeRejectionThreshold is queueSizeRejectionThreshold.
	ThreadPoolQueueSizeRejectionThreshold = key("queueSizeRejectionThreshold", 5, intCodec, atLeast(0),
		func(p *pool) **Property[int] { return &p.QueueSizeRejectionThreshold })
	// ThreadPoolKeepAlive is keepAliveTimeMinutes.
	ThreadPoolKeepAlive = key("keepAliveTimeMinutes", time.Minute, minutesCodec, nonNegative,
		func(p *pool) **Property[time.Duration] { return &p.KeepAlive })
	// ThreadPoolRollingStatsWindow is metrics.rollingStats.timeInMilliseconds.
	ThreadPoolRollingStatsWindow = key("metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive,
		func(p *pool) **Property[time.Duration] { return &p.RollingStatsWindow })
	// ThreadPoolRollingStatsBuckets is metrics.rollingStats.numBuckets.
	ThreadPoolRollingStatsBuckets = key("metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1),
		func(p *pool) **Property[int] { return &p.RollingStatsBuckets })
)

// threadPoolScope is the table of every thread-pool property, shared by every pool key.
var threadPoolScope = func() *scope[pool] {
	sc := newScope("threadpool", "thread-pool", func(p *pool) *keyState { return &p.k },
		ThreadPoolCoreSize.d,
		ThreadPoolMaximumSize.d,
		ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.d,
		ThreadPoolMaxQueueSize.d,
		ThreadPoolQueueSizeRejectionThreshold.d,
		ThreadPoolKeepAlive.d,
		ThreadPoolRollingStatsWindow.d,
		ThreadPoolRollingStatsBuckets.d,
	)
	sc.checks = []check[pool]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		poolHasWorkers(sc),
	}
	return sc
}()

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

// EffectiveMaximumSize is the pool's maximum number of workers: max(CoreSize,
// MaximumSize) when AllowMaximumSizeToDivergeFromCoreSize is true, else CoreSize (as
// Hystrix; a MaximumSize below CoreSize is thus harmless). It is at least 1: the Store
// rejects settings that make it 0, and a reader racing a change of several of these
// properties (each Property is updated on its own) never sees 0 either.
func (p *ThreadPoolProperties) EffectiveMaximumSize() int {
	return max(1, effectiveMaximumSize(p.CoreSize.Get(), p.MaximumSize.Get(), p.AllowMaximumSizeToDivergeFromCoreSize.Get()))
}

// Key returns the thread-pool key.
func (p *ThreadPoolProperties) Key() string { return p.k.key }

// Settings lists every thread-pool property with its full Hystrix name and current value.
func (p *ThreadPoolProperties) Settings() []Setting { return threadPoolScope.settings(p) }

func (p *ThreadPoolProperties) state() *keyState { return &p.k }

func (p *ThreadPoolProperties) refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	return threadPoolScope.refresh(p, lookup, scratch)
}
