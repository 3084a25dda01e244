package command

import (
	"errors"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// keyState is everything resolved once per command key: properties, metrics, breaker,
// semaphores, the deadline queue and (lazily, on the first THREAD execution) the goroutine
// pool.
type keyState struct {
	rt          *Runtime
	info        hooks.Info
	props       *config.CommandProperties
	err         error   // invalid settings: every execution fails with a BAD_REQUEST_EXCEPTION
	invalid     *Setter // the Setter that gave err, for a later one to repair the key
	poolKey     string  // the Setter's ThreadPoolKey (info's may be threadPoolKeyOverride)
	poolProps   config.ThreadPoolOverrides
	stream      bool
	reported    atomic.Bool    // err was logged
	forgotten   atomic.Bool    // the runtime forgot the key (idle): a Kind resolves it again
	differs     atomic.Bool    // a differing Setter was logged
	sameProps   atomic.Uintptr // the mapID of the properties that last compared equal
	metrics     *metrics.CommandMetrics
	breaker     breaker.CircuitBreaker
	fallbackSem *bulkhead.Semaphore
	classify    Classifier
	deadlines   deadlines
	chain       atomic.Pointer[keyChain] // the chain of the key's properties (currentChain)

	poolMu sync.Mutex
	pool   atomic.Pointer[poolBinding]
}

// poolBinding is the goroutine pool a key runs on and the pool's metrics.
type poolBinding struct {
	p *bulkhead.Pool
	m *metrics.ThreadPoolMetrics
}

func newKeyState(r *Runtime, s *Setter, stream bool) *keyState {
	ks := &keyState{
		rt:        r,
		info:      hooks.Info{CommandKey: s.CommandKey, GroupKey: s.GroupKey, ThreadPoolKey: s.ThreadPoolKey},
		poolKey:   s.ThreadPoolKey,
		poolProps: s.ThreadPoolProperties,
		stream:    stream,
		classify:  s.Classifier,
		deadlines: deadlines{rt: r},
	}
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
		first := *s // a copy: keeping s would make every New's Setter escape
		ks.err, ks.invalid = err, &first
		if s.CommandKey != "" {
			ks.metrics = r.metrics.Command(s.CommandKey) // misconfigured executions show up
		}
		return ks
	}
	if o := config.ThreadPoolKeyOverride.In(props).Get(); o != "" {
		ks.info.ThreadPoolKey = o
	}
	ks.props = props
	ks.metrics = r.metrics.CommandFor(s.CommandKey, props)
	ks.breaker = r.breakers.Get(s.CommandKey, props)
	ks.fallbackSem = bulkhead.NewSemaphore(config.FallbackMaxConcurrentRequests.In(props))
	return ks
}

// execPermits returns the execution semaphore's permits in use: the key's concurrency,
// which the semaphore counts in (TryMarkStart), while the key is under SEMAPHORE isolation.
func (ks *keyState) execPermits() int {
	if !ks.stream && config.ExecutionIsolationStrategy.In(ks.props).Get() != config.Semaphore {
		return 0
	}
	return int(ks.metrics.CurrentConcurrency())
}

// errStreamThread is the definition error of a stream key set to THREAD isolation.
var errStreamThread = errors.New("command: streams run under SEMAPHORE isolation (construct's observable " +
	"emits on goroutines of its own, so a pool worker would only hold a slot); set execution.isolation.strategy " +
	"to SEMAPHORE or leave it unset")

// streamDefaults are the values a stream key implies when its Setter does not set them:
// Hystrix's HystrixObservableCommand defaults to SEMAPHORE isolation.
var streamDefaults = []config.Entry[config.CommandProperties]{config.ExecutionIsolationStrategy.Of(config.Semaphore)}

// streamOverrides returns a stream key's code-set properties: SEMAPHORE isolation unless
// set, and an error if set to THREAD.
func streamOverrides(o config.Overrides) (config.Overrides, error) {
	name := config.ExecutionIsolationStrategy.Name()
	raw, set := o[name]
	if !set {
		o = maps.Clone(o)
		if o == nil {
			o = config.Overrides{}
		}
		maps.Copy(o, config.Set(streamDefaults...))
		return o, nil
	}
	if iso, err := config.ParseIsolationStrategy(raw); err == nil && iso == config.Thread {
		return nil, errStreamThread
	}
	return o, nil
}

// keyChain is the chain of a key's properties at one version of them.
type keyChain struct {
	chain   *link  // its outermost link
	version uint64 // config.CommandProperties.Version the chain was picked at
}

// currentChain returns the key's chain, picked again when a property changed since it was
// last picked (one atomic load and a compare when none did).
func (ks *keyState) currentChain() *link {
	version := ks.props.Version() // before the reads: a change during them picks again next time
	if kc := ks.chain.Load(); kc != nil && kc.version == version {
		return kc.chain
	}
	k := shape{props: ks.props, iso: config.ExecutionIsolationStrategy.In(ks.props).Get(), rt: ks.rt, m: ks.metrics}
	if ks.stream {
		k.iso = config.Semaphore
	}
	c := ks.rt.chainOf(stagesOf(k))
	ks.chain.Store(&keyChain{chain: c, version: version})
	return c
}

// forgetStages tells the stages of the key's chain that own state of it that the runtime
// forgot the key (owning).
func (ks *keyState) forgetStages() {
	kc := ks.chain.Load()
	if kc == nil {
		return
	}
	for l := kc.chain; l != nil; l = l.next {
		s := stage(l.wrap)
		if l.step != nil {
			s = l.step
		}
		if o, ok := s.(owning); ok {
			o.forget(ks.rt)
		}
	}
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
// first use and again after the pool was evicted for idleness; the metrics read the
// pool's gauges.
func (ks *keyState) threadPool() (*bulkhead.Pool, *metrics.ThreadPoolMetrics, error) {
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
