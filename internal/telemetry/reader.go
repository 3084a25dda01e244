package telemetry

import (
	"strings"
	"sync"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Reader reads the catalogue from a Runtime's registries. Read is safe for concurrent use.
// The only state it keeps is the count of breaker transitions per command key, fed by
// breaker.Registry.OnStateChange (the breakers do not count them) and dropped when the
// key is evicted. Close it when done.
type Reader struct {
	rt      *command.Runtime
	mu      sync.Mutex
	trans   map[string]*[3][3]float64 // command key -> [from][to] count
	cancels []func()
}

// NewReader returns a Reader of rt that counts breaker transitions from now on.
func NewReader(rt *command.Runtime) *Reader {
	r := &Reader{rt: rt, trans: map[string]*[3][3]float64{}}
	r.cancels = []func(){
		rt.Breakers().OnStateChange(r.transition),
		rt.Metrics().OnCommandEvicted(r.evicted),
	}
	return r
}

// Close stops counting transitions.
func (r *Reader) Close() {
	for _, c := range r.cancels {
		c()
	}
}

func (r *Reader) transition(t breaker.Transition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.trans[t.Key]
	if c == nil {
		c = new([3][3]float64)
		r.trans[t.Key] = c
	}
	if int(t.From) < len(c) && int(t.To) < len(c) {
		c[t.From][t.To]++
	}
}

func (r *Reader) evicted(m *metrics.CommandMetrics) {
	r.mu.Lock()
	delete(r.trans, m.Key())
	r.mu.Unlock()
}

func (r *Reader) transitions(key string) [3][3]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.trans[key]; c != nil {
		return *c
	}
	return [3][3]float64{}
}

// Emit receives one sample: the metric (an index into Catalogue), its value and the
// values of its labels. labels is only valid during the call.
type Emit func(metric int, value float64, labels []string)

// Read emits every sample of every command key, thread pool and collapser the
// registries hold now (event counters that are still 0 are left out, see outcomes).
// Counters and gauges are read as they are (atomic loads): it never creates a key, and a
// key the registries evicted is simply absent.
func (r *Reader) Read(emit Emit) {
	m := r.rt.Metrics()
	var buf [5]string
	for _, cm := range m.Commands() {
		r.command(emit, buf[:0], cm)
	}
	for _, pm := range m.ThreadPools() {
		pool(emit, buf[:0], pm)
	}
	for _, cm := range m.Collapsers() {
		collapser(emit, buf[:0], cm)
	}
}

// Percentiles are the latency and batch-size percentiles read, with their label values:
// those the Hystrix dashboard shows (it adds the mean), each precomputed per window.
var Percentiles = []struct {
	Label string
	P     float64
}{{"50", 50}, {"90", 90}, {"99", 99}, {"99.5", 99.5}}

// outcomes are the command events that are always read, zero included: the primary
// outcome of every execution that is not a cache hit or a bad request, so error-rate and
// short-circuit queries find a series even for a healthy key. Every other event counter,
// and each breaker transition, is read from its first occurrence on: most of a key's 23
// possible counters stay at zero for ever, and every series costs each scrape.
const outcomes = 1<<metrics.Success | 1<<metrics.Failure | 1<<metrics.Timeout |
	1<<metrics.ShortCircuited | 1<<metrics.ThreadPoolRejected | 1<<metrics.SemaphoreRejected

// Label values of the event types: their Hystrix names in lower case.
var (
	commandEvents   = lower[metrics.EventType](metrics.NumEventTypes)
	poolEvents      = lower[metrics.ThreadPoolEventType](metrics.NumThreadPoolEventTypes)
	collapserEvents = lower[metrics.CollapserEventType](metrics.NumCollapserEventTypes)
)

func lower[E interface {
	~uint8
	String() string
}](n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = strings.ToLower(E(i).String())
	}
	return names
}

// breakerPairs are the transitions a breaker can make.
var breakerPairs = [...][2]breaker.State{
	{breaker.Closed, breaker.Open}, {breaker.Open, breaker.HalfOpen}, {breaker.HalfOpen, breaker.Closed},
	{breaker.HalfOpen, breaker.Open}, {breaker.Open, breaker.Closed},
}

var states = [...]breaker.State{breaker.Closed, breaker.Open, breaker.HalfOpen}

func stateLabel(s breaker.State) string { return strings.ToLower(s.String()) }

func (r *Reader) command(emit Emit, l []string, m *metrics.CommandMetrics) {
	key := m.Key()
	group, pool := r.rt.CommandKeys(key)
	l = append(l, key, group, pool)
	for ev := range metrics.CommandMaxActive { // the last type is a gauge, not an event
		if n := m.CumulativeCount(ev); n != 0 || outcomes&(1<<ev) != 0 {
			emit(CommandEvents, float64(n), append(l, commandEvents[ev]))
		}
	}
	for _, p := range Percentiles {
		emit(CommandExecutionLatency, m.ExecutionLatencyPercentile(p.P).Seconds(), append(l, p.Label))
		emit(CommandTotalLatency, m.TotalLatencyPercentile(p.P).Seconds(), append(l, p.Label))
	}
	emit(CommandExecutionLatencyMean, m.ExecutionLatencyMean().Seconds(), l)
	emit(CommandTotalLatencyMean, m.TotalLatencyMean().Seconds(), l)
	emit(CommandConcurrentExecutions, float64(m.CurrentConcurrency()), l)
	emit(CommandMaxConcurrentExecutions, float64(m.RollingMaxConcurrency()), l)
	h := m.HealthCounts()
	emit(CommandHealthRequests, float64(h.TotalRequests), l)
	emit(CommandHealthErrors, float64(h.ErrorCount), l)

	b, ok := r.rt.Breakers().Lookup(key)
	if !ok {
		return
	}
	now := b.State()
	for _, s := range states {
		v := 0.0
		if s == now {
			v = 1
		}
		emit(CircuitBreakerState, v, append(l, stateLabel(s)))
	}
	counts := r.transitions(key)
	for _, p := range breakerPairs {
		if n := counts[p[0]][p[1]]; n != 0 {
			emit(CircuitBreakerTransitions, n, append(l, stateLabel(p[0]), stateLabel(p[1])))
		}
	}
}

func pool(emit Emit, l []string, m *metrics.ThreadPoolMetrics) {
	l = append(l, m.Key())
	for e, name := range poolEvents {
		emit(ThreadPoolEvents, float64(m.CumulativeCount(metrics.ThreadPoolEventType(e))), append(l, name))
	}
	g := m.Gauges()
	emit(ThreadPoolActiveThreads, float64(g.ActiveCount), l)
	emit(ThreadPoolMaxActiveThreads, float64(m.RollingMaxActive()), l)
	emit(ThreadPoolQueuedTasks, float64(g.QueueSize), l)
	emit(ThreadPoolThreads, float64(g.PoolSize), l)
	emit(ThreadPoolLargestThreads, float64(g.LargestPoolSize), l)
	emit(ThreadPoolCoreThreads, float64(g.CorePoolSize), l)
	emit(ThreadPoolMaxThreads, float64(g.MaximumPoolSize), l)
	emit(ThreadPoolCompletedTasks, float64(g.CompletedTaskCount), l)
	emit(ThreadPoolTasks, float64(g.TaskCount), l)
}

func collapser(emit Emit, l []string, m *metrics.CollapserMetrics) {
	l = append(l, m.Key())
	for e, name := range collapserEvents {
		emit(CollapserEvents, float64(m.CumulativeCount(metrics.CollapserEventType(e))), append(l, name))
	}
	for _, p := range Percentiles {
		emit(CollapserBatchSize, m.BatchSizePercentile(p.P), append(l, p.Label))
	}
	emit(CollapserBatchSizeMean, m.BatchSizeMean(), l)
}
