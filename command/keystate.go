package command

import (
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// keyState is everything resolved once per command key: properties, metrics, breaker,
// semaphores and (lazily, on the first THREAD execution) the goroutine pool.
type keyState struct {
	rt          *Runtime
	info        hooks.Info
	props       *config.CommandProperties
	err         error // invalid properties: every execution fails with a BAD_REQUEST_EXCEPTION
	metrics     *metrics.CommandMetrics
	breaker     breaker.CircuitBreaker
	execSem     *isolation.Semaphore
	fallbackSem *isolation.Semaphore
	poolProps   config.Overrides
	classify    Classifier

	poolMu sync.Mutex
	pool   atomic.Pointer[poolBinding]
}

// poolBinding is the goroutine pool a key runs on and the pool's metrics.
type poolBinding struct {
	p *isolation.Pool
	m *metrics.ThreadPoolMetrics
}

func newKeyState(r *Runtime, s *Setter) *keyState {
	ks := &keyState{
		rt:        r,
		info:      hooks.Info{CommandKey: s.CommandKey, GroupKey: s.GroupKey, ThreadPoolKey: s.ThreadPoolKey},
		poolProps: s.ThreadPoolProperties,
		classify:  s.Classifier,
	}
	props, err := r.config.Command(s.CommandKey, s.Properties)
	if err != nil || props == nil {
		ks.err = err
		return ks
	}
	if o := props.ThreadPoolKeyOverride.Get(); o != "" {
		ks.info.ThreadPoolKey = o
	}
	ks.props = props
	ks.metrics = r.metrics.CommandFor(s.CommandKey, props)
	ks.breaker = r.breakers.Get(s.CommandKey, props)
	ks.execSem = isolation.NewSemaphore(props.ExecutionMaxConcurrentRequests)
	ks.fallbackSem = isolation.NewSemaphore(props.FallbackMaxConcurrentRequests)
	return ks
}

// threadPool returns the pool of the key's thread-pool key and its metrics, made on
// first use and again after the pool was evicted for idleness; the metrics read the
// pool's gauges.
func (ks *keyState) threadPool() (*isolation.Pool, *metrics.ThreadPoolMetrics, error) {
	if b := ks.pool.Load(); b != nil && !b.p.Closed() {
		return b.p, b.m, nil
	}
	ks.poolMu.Lock()
	defer ks.poolMu.Unlock()
	if b := ks.pool.Load(); b != nil && !b.p.Closed() {
		return b.p, b.m, nil
	}
	key := ks.info.ThreadPoolKey
	p, err := ks.rt.pools.Get(key, ks.poolProps)
	if err != nil {
		return nil, nil, err
	}
	props, err := ks.rt.config.ThreadPool(key, ks.poolProps) // cached: Get resolved it
	if err != nil {
		return nil, nil, err
	}
	m := ks.rt.metrics.ThreadPoolFor(key, props)
	m.SetGauges(p.Gauges)
	ks.pool.Store(&poolBinding{p: p, m: m})
	return p, m, nil
}
