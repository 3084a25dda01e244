package bulkhead

import (
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/config"
)

// Semaphore is a non-blocking counting semaphore whose limit is read on every TryAcquire,
// so a change of the limit property takes effect at once, downward too: when more permits
// are in use than the new limit allows, TryAcquire fails until enough are released.
// It is lock-free and does not allocate. The zero value is not usable; use NewSemaphore.
type Semaphore struct {
	inUse atomic.Int64
	limit getter[int]
}

// NewSemaphore returns a semaphore with no permit in use whose limit is the current value
// of limit (the command package passes a key's
// fallback.isolation.semaphore.maxConcurrentRequests; its execution semaphore is the
// key's concurrency counter in metrics). It panics if limit is nil.
func NewSemaphore(limit *config.Property[int]) *Semaphore {
	if limit == nil {
		panic("isolation: NewSemaphore with a nil limit")
	}
	return &Semaphore{limit: limit}
}

// TryAcquire takes a permit if fewer than the current limit are in use and reports whether
// it did. It never blocks.
func (s *Semaphore) TryAcquire() bool {
	limit := int64(s.limit.Get())
	for {
		n := s.inUse.Load()
		if n >= limit {
			return false
		}
		if s.inUse.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// Release returns a permit taken by a successful TryAcquire. Releasing more permits than
// were acquired is a bug in the caller and panics, as unlocking an unlocked sync.Mutex does.
func (s *Semaphore) Release() {
	if s.inUse.Add(-1) < 0 {
		s.inUse.Add(1)
		panic("isolation: Semaphore.Release without a matching TryAcquire")
	}
}

// InUse returns the number of permits currently held.
func (s *Semaphore) InUse() int { return int(s.inUse.Load()) }
