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

	set *propSet
}

func newThreadPoolProperties(key string) (*ThreadPoolProperties, *propSet) {
	s := newPropSet("threadpool", key)
	p := &ThreadPoolProperties{set: s}
	core := add(s, "coreSize", 10, intCodec, atLeast(0))
	p.CoreSize = core.prop
	maxSize := add(s, "maximumSize", 10, intCodec, atLeast(0))
	p.MaximumSize = maxSize.prop
	allow := add(s, "allowMaximumSizeToDivergeFromCoreSize", false, boolCodec, nil)
	p.AllowMaximumSizeToDivergeFromCoreSize = allow.prop
	p.MaxQueueSize = add(s, "maxQueueSize", -1, intCodec, atLeast(-1)).prop
	p.QueueSizeRejectionThreshold = add(s, "queueSizeRejectionThreshold", 5, intCodec, atLeast(0)).prop
	p.KeepAlive = add(s, "keepAliveTimeMinutes", time.Minute, minutesCodec, nonNegative).prop
	statsWindow := add(s, "metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive)
	p.RollingStatsWindow = statsWindow.prop
	statsBuckets := add(s, "metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1))
	p.RollingStatsBuckets = statsBuckets.prop
	s.checks = []check{divisible(statsWindow, statsBuckets), poolHasWorkers(core, maxSize, allow)}
	return p, s
}

// effectiveMaximumSize is max(core, maximum) when allow, else core (as Hystrix).
func effectiveMaximumSize(core, maximum int, allow bool) int {
	if allow {
		return max(core, maximum)
	}
	return core
}

// poolHasWorkers requires an effective maximum pool size of at least 1.
func poolHasWorkers(core, maximum *slot[int], allow *slot[bool]) check {
	return check{fields: []field{core, maximum, allow}, run: func() *PropertyError {
		if effectiveMaximumSize(core.next, maximum.next, allow.next) >= 1 {
			return nil
		}
		return &PropertyError{Name: core.fullName(), Value: intCodec.format(core.next),
			Err: fmt.Errorf("effective maximum pool size is 0 (%s=%d, %s=%t)",
				maximum.fullName(), maximum.next, allow.fullName(), allow.next)}
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
func (p *ThreadPoolProperties) Key() string { return p.set.key }

// Settings lists every thread-pool property with its full Hystrix name and current value.
func (p *ThreadPoolProperties) Settings() []Setting { return p.set.settings() }
