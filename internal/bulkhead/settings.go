package bulkhead

import (
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

// getter is what the pool and the semaphore need of a config property: its current value,
// read on every use. *config.Property[T] implements it.
type getter[T any] interface{ Get() T }

// poolSettings are the thread-pool properties a Pool reads. All but maxQueueSize are
// re-read on every SubmitTask (and by workers going idle), as Hystrix re-applies them on
// every execution; maxQueueSize is fixed when the pool is made, as in Hystrix.
type poolSettings struct {
	coreSize, maximumSize, queueSizeRejectionThreshold getter[int]
	allowMaximumSizeToDivergeFromCoreSize              getter[bool]
	keepAlive                                          getter[time.Duration]
	maxQueueSize                                       int // <= 0: no queue, hand-off only
}

// settingsFrom reads the properties of a thread pool; maxQueueSize once, the others stay
// live.
func settingsFrom(p *config.ThreadPoolProperties) poolSettings {
	return poolSettings{
		coreSize:                              config.ThreadPoolCoreSize.In(p),
		maximumSize:                           config.ThreadPoolMaximumSize.In(p),
		queueSizeRejectionThreshold:           config.ThreadPoolQueueSizeRejectionThreshold.In(p),
		allowMaximumSizeToDivergeFromCoreSize: config.ThreadPoolAllowMaximumSizeToDivergeFromCoreSize.In(p),
		keepAlive:                             config.ThreadPoolKeepAlive.In(p),
		maxQueueSize:                          config.ThreadPoolMaxQueueSize.In(p).Get(),
	}
}

// sizes returns the current core size and the effective maximum size: max(core, maximum)
// when allowMaximumSizeToDivergeFromCoreSize, else core, and at least 1 (a reader racing
// a change of several properties never sees 0). A negative core counts as 0.
func (s *poolSettings) sizes() (core, maxSize int) {
	core = max(s.coreSize.Get(), 0)
	maxSize = core
	if s.allowMaximumSizeToDivergeFromCoreSize.Get() {
		maxSize = max(core, s.maximumSize.Get())
	}
	return core, max(maxSize, 1)
}
