package command

import (
	"errors"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/isolation"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// keyState is everything resolved once per command key: properties, metrics, breaker,
// semaphores, the deadline queue and (lazily, on the first THREAD execution) the goroutine
// pool.
type keyState struct {
	rt          *Runtime
	info        hooks.Info
	setter      Setter // the first one, which decided everything here
	props       *config.CommandProperties
	err         error // invalid settings: every execution fails with a BAD_REQUEST_EXCEPTION
	reported    atomic.Bool
	metrics     *metrics.CommandMetrics
	breaker     breaker.CircuitBreaker
	execSem     *isolation.Semaphore
	fallbackSem *isolation.Semaphore
	classify    Classifier
	deadlines   deadlines
	differs     atomic.Bool

	poolMu      sync.Mutex
	pool        atomic.Pointer[isolation.Pool]
	poolMetrics *metrics.ThreadPoolMetrics // written before pool is stored
}

func newKeyState(r *Runtime, s *Setter, stream bool) *keyState {
	ks := &keyState{
		rt:       r,
		info:     hooks.Info{CommandKey: s.CommandKey, GroupKey: s.GroupKey, ThreadPoolKey: s.ThreadPoolKey},
		setter:   *s,
		classify: s.Classifier,
	}
	ks.deadlines = deadlines{clk: r.clk, base: r.base}
	inCode, err := s.Properties, error(nil)
	if stream {
		inCode, err = streamOverrides(inCode)
	}
	var props *config.CommandProperties
	if err == nil {
		props, err = r.config.Command(s.CommandKey, inCode)
	}
	if err == nil {
		err = config.ValidateThreadPool(s.ThreadPoolKey, s.ThreadPoolProperties)
	}
	if err != nil {
		ks.err = err
		if s.CommandKey != "" {
			ks.metrics = r.metrics.Command(s.CommandKey) // misconfigured executions show up
		}
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

// errStreamThread is the definition error of a stream key set to THREAD isolation.
var errStreamThread = errors.New("command: streams run under SEMAPHORE isolation (construct's observable " +
	"emits on goroutines of its own, so a pool worker would only hold a slot); set execution.isolation.strategy " +
	"to SEMAPHORE or leave it unset")

// streamOverrides returns a stream key's code-set properties: SEMAPHORE isolation unless
// set, and an error if set to THREAD.
func streamOverrides(o config.Overrides) (config.Overrides, error) {
	const name = "execution.isolation.strategy"
	raw, set := o[name]
	if !set {
		o = maps.Clone(o)
		if o == nil {
			o = config.Overrides{}
		}
		o[name] = config.Semaphore.String()
		return o, nil
	}
	if iso, err := config.ParseIsolationStrategy(raw); err == nil && iso == config.Thread {
		return nil, errStreamThread
	}
	return o, nil
}

// chainFor returns the chain x runs: a stream's always isolates with the semaphore.
func (ks *keyState) chainFor(x *execution) chain {
	if x.body.streams() {
		return chains[config.Semaphore]
	}
	return chains[ks.props.IsolationStrategy.Get()]
}

// misconfigured counts an execution of a key whose settings are invalid (a BAD_REQUEST in
// metrics, so the dashboard shows it) and logs the problem once per key.
func (ks *keyState) misconfigured() {
	if ks.metrics != nil {
		ks.metrics.MarkComplete(metrics.ExecutionResult{}.WithEvent(metrics.BadRequest))
	}
	if ks.reported.CompareAndSwap(false, true) {
		ks.rt.logger.Error("command: invalid settings: every execution fails with BAD_REQUEST_EXCEPTION",
			"key", ks.info.CommandKey, "err", ks.err)
	}
}

// threadPool returns the pool of the key's thread-pool key and its metrics, made on
// first use; the metrics read the pool's gauges.
func (ks *keyState) threadPool() (*isolation.Pool, *metrics.ThreadPoolMetrics, error) {
	if p := ks.pool.Load(); p != nil {
		return p, ks.poolMetrics, nil
	}
	ks.poolMu.Lock()
	defer ks.poolMu.Unlock()
	if p := ks.pool.Load(); p != nil {
		return p, ks.poolMetrics, nil
	}
	key := ks.info.ThreadPoolKey
	p, err := ks.rt.pools.Get(key, ks.setter.ThreadPoolProperties)
	if err != nil {
		return nil, nil, err
	}
	props, err := ks.rt.config.ThreadPool(key, ks.setter.ThreadPoolProperties) // cached: Get resolved it
	if err != nil {
		return nil, nil, err
	}
	m := ks.rt.metrics.ThreadPoolFor(key, props)
	m.SetGauges(p.Gauges)
	ks.poolMetrics = m
	ks.pool.Store(p)
	return p, m, nil
}
