package telemetry

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rxhystrix/rxhystrix/breaker"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// Reader reads the catalogue from a Runtime's registries for one exporter, which gives
// the labels of a series its own form L (Prometheus label pairs, an OpenTelemetry
// attribute set). Read is safe for concurrent use. A Reader keeps two things:
//   - the count of breaker transitions per command key, fed by
//     breaker.Registry.OnStateChange (the breakers do not count them) and dropped when
//     the key is evicted;
//   - per command key, thread pool and collapser (an entity), its label sets in the
//     exporter's form, each made once, by Labels, the first time a series carrying it
//     is read, and dropped with the entity when a read no longer finds it in the
//     registries. A read then makes nothing per series.
//
// Close it when done.
type Reader[L any] struct {
	rt     *command.Runtime
	labels Labels[L]

	mu    sync.Mutex                // guards trans
	trans map[string]*[3][3]float64 // command key -> [from][to] count

	cache    sync.Mutex // guards entities and gen
	entities map[any]*entity[L]
	gen      uint64 // reads so far; an entity not stamped with the latest is gone

	cancels []func()
}

// Labels makes the exporter's form of a label set from the label names and values of
// its series, in Catalogue order. Series of one entity share its own labels (a command
// key's command, group and thread_pool) and may carry one or two more (event,
// percentile, state, from and to): base is the form of the entity's own labels, made
// first, with base the zero L, and then passed to every other set of the entity, so
// that an exporter can share what the sets have in common.
type Labels[L any] func(base L, names, values []string) L

// NewReader returns a Reader of rt whose label sets labels makes. It counts breaker
// transitions from now on.
func NewReader[L any](rt *command.Runtime, labels Labels[L]) *Reader[L] {
	r := &Reader[L]{rt: rt, labels: labels, trans: map[string]*[3][3]float64{}, entities: map[any]*entity[L]{}}
	r.cancels = []func(){
		rt.Breakers().OnStateChange(r.transition),
		rt.Metrics().OnCommandEvicted(r.evicted),
	}
	return r
}

// Close stops counting transitions.
func (r *Reader[L]) Close() {
	for _, c := range r.cancels {
		c()
	}
}

func (r *Reader[L]) transition(t breaker.Transition) {
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

func (r *Reader[L]) evicted(m *metrics.CommandMetrics) {
	r.mu.Lock()
	delete(r.trans, m.Key())
	r.mu.Unlock()
}

func (r *Reader[L]) transitions(key string) [3][3]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.trans[key]; c != nil {
		return *c
	}
	return [3][3]float64{}
}

// Emit receives one sample: the metric (an index into Catalogue), its labels in the
// exporter's form and its value.
type Emit[L any] func(metric int, labels L, value float64)

// Read emits every sample of every command key, thread pool and collapser the
// registries hold now (event counters that are still 0 are left out, see outcomes),
// entity by entity in key order and, within a metric, in the order of the label values.
// Counters and gauges are read as they are (atomic loads): it never creates a key, and a
// key the registries evicted is simply absent.
func (r *Reader[L]) Read(emit Emit[L]) {
	m := r.rt.Metrics()
	commands, pools, collapsers := m.Commands(), m.ThreadPools(), m.Collapsers()
	es := r.entitiesOf(commands, pools, collapsers)
	for i, cm := range commands {
		r.command(emit, es[i], cm)
	}
	es = es[len(commands):]
	for i, pm := range pools {
		r.pool(emit, es[i], pm)
	}
	es = es[len(pools):]
	for i, cm := range collapsers {
		r.collapser(emit, es[i], cm)
	}
}

// entity is what a Reader keeps of a command key, thread pool or collapser: its own
// labels and, by extra, the label sets of its series in the exporter's form.
type entity[L any] struct {
	names, values []string
	sets          []atomic.Pointer[L] // by index of extras, made when first read
	gen           uint64
}

// entitiesOf returns the entities of the keys listed, in order, making those it has not
// seen (or whose labels changed) and dropping those that are no longer listed.
func (r *Reader[L]) entitiesOf(commands []*metrics.CommandMetrics, pools []*metrics.ThreadPoolMetrics,
	collapsers []*metrics.CollapserMetrics) []*entity[L] {
	es := make([]*entity[L], 0, len(commands)+len(pools)+len(collapsers))
	r.cache.Lock()
	defer r.cache.Unlock()
	r.gen++
	for _, m := range commands {
		key := m.Key()
		group, pool := r.rt.CommandKeys(key)
		es = append(es, r.entity(m, commandLabels, key, group, pool))
	}
	for _, m := range pools {
		es = append(es, r.entity(m, poolLabels, m.Key()))
	}
	for _, m := range collapsers {
		es = append(es, r.entity(m, collLabels, m.Key()))
	}
	for id, e := range r.entities {
		if e.gen != r.gen {
			delete(r.entities, id)
		}
	}
	return es
}

// entity returns the entity of the metrics m with these labels, stamped as seen.
func (r *Reader[L]) entity(m any, names []string, values ...string) *entity[L] {
	e := r.entities[m]
	if e == nil || !slices.Equal(e.values, values) {
		e = &entity[L]{names: names, values: slices.Clone(values), sets: make([]atomic.Pointer[L], len(extras))}
		r.entities[m] = e
	}
	e.gen = r.gen
	return e
}

// of returns the labels of the entity's series that carry extra x (0: its own alone).
func (e *entity[L]) of(labels Labels[L], x int) L {
	if l := e.sets[x].Load(); l != nil {
		return *l
	}
	var base L
	if x != 0 {
		base = e.of(labels, 0)
	}
	l := labels(base, append(slices.Clip(e.names), extras[x].names...), append(slices.Clip(e.values), extras[x].values...))
	e.sets[x].CompareAndSwap(nil, &l) // a read at the same time may have made it first: use one
	return *e.sets[x].Load()
}

// extra is a set of labels that some series carry beyond their entity's own:
// event="success", percentile="99", from="closed",to="open". Its index in extras is its
// index in every entity's sets.
type extra struct{ names, values []string }

var extras = []extra{{}} // 0: the entity's own labels alone

// extraOf adds the extra labels names=values and returns its index.
func extraOf(names []string, values ...string) int {
	extras = append(extras, extra{names, values})
	return len(extras) - 1
}

// extrasOf adds one extra label name=v per value and returns their indexes.
func extrasOf(name string, values []string) []int {
	xs := make([]int, len(values))
	for i, v := range values {
		xs[i] = extraOf([]string{name}, v)
	}
	return xs
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
// and each breaker transition, is read from its first occurrence on: most of a key's
// possible counters stay at zero for ever, and every series costs each scrape.
const outcomes = 1<<metrics.Success | 1<<metrics.Failure | 1<<metrics.Timeout |
	1<<metrics.ShortCircuited | 1<<metrics.ThreadPoolRejected | 1<<metrics.SemaphoreRejected

// The extras of the event types (their Hystrix names in lower case), percentiles, breaker
// states and transitions, by event type, percentile, state and breakerPairs.
var (
	commandEvents   = extrasOf(LabelEvent, lower[metrics.EventType](metrics.NumEventTypes)) // COMMAND_MAX_ACTIVE's unused (commandEventOrder)
	poolEvents      = extrasOf(LabelEvent, lower[metrics.ThreadPoolEventType](metrics.NumThreadPoolEventTypes))
	collapserEvents = extrasOf(LabelEvent, lower[metrics.CollapserEventType](metrics.NumCollapserEventTypes))
	percentiles     = extrasOf(LabelPercentile, percentileLabels())
	states          = extrasOf(LabelState, stateLabels())
	transitions     = transitionExtras()
)

// breakerPairs are the transitions a breaker can make, in the order of their labels.
var breakerPairs = [...][2]breaker.State{
	{breaker.Closed, breaker.Open}, {breaker.HalfOpen, breaker.Closed}, {breaker.HalfOpen, breaker.Open},
	{breaker.Open, breaker.Closed}, {breaker.Open, breaker.HalfOpen},
}

// Orders in which to read the event types and breaker states: that of their labels,
// the order in which Prometheus sorts the series of a metric.
var (
	commandEventOrder   = slices.DeleteFunc(labelOrder(commandEvents), isGauge) // COMMAND_MAX_ACTIVE is a gauge, not an event
	poolEventOrder      = labelOrder(poolEvents)
	collapserEventOrder = labelOrder(collapserEvents)
	stateOrder          = labelOrder(states)
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

func percentileLabels() []string {
	labels := make([]string, len(Percentiles))
	for i, p := range Percentiles {
		labels[i] = p.Label
	}
	return labels
}

// stateLabels returns the labels of the states a breaker can be in, by state.
func stateLabels() []string {
	labels := make([]string, breaker.HalfOpen+1)
	for s := range labels {
		labels[s] = stateLabel(breaker.State(s))
	}
	return labels
}

func stateLabel(s breaker.State) string { return strings.ToLower(s.String()) }

func transitionExtras() []int {
	xs := make([]int, len(breakerPairs))
	for i, p := range breakerPairs {
		xs[i] = extraOf([]string{LabelFrom, LabelTo}, stateLabel(p[0]), stateLabel(p[1]))
	}
	return xs
}

// labelOrder returns the positions of xs, single-label extras, in the order of their
// label values.
func labelOrder(xs []int) []int {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(extras[xs[a]].values[0], extras[xs[b]].values[0]) })
	return order
}

// isGauge reports whether the command event type ev is COMMAND_MAX_ACTIVE, a gauge read as
// command.max_concurrent_executions.
func isGauge(ev int) bool { return ev == int(metrics.CommandMaxActive) }

func (r *Reader[L]) command(emit Emit[L], e *entity[L], m *metrics.CommandMetrics) {
	own := e.of(r.labels, 0)
	for _, ev := range commandEventOrder {
		if n := m.CumulativeCount(metrics.EventType(ev)); n != 0 || outcomes&(1<<ev) != 0 {
			emit(CommandEvents, e.of(r.labels, commandEvents[ev]), float64(n))
		}
	}
	for i, p := range Percentiles {
		emit(CommandExecutionLatency, e.of(r.labels, percentiles[i]), m.ExecutionLatencyPercentile(p.P).Seconds())
	}
	for i, p := range Percentiles {
		emit(CommandTotalLatency, e.of(r.labels, percentiles[i]), m.TotalLatencyPercentile(p.P).Seconds())
	}
	emit(CommandExecutionLatencyMean, own, m.ExecutionLatencyMean().Seconds())
	emit(CommandTotalLatencyMean, own, m.TotalLatencyMean().Seconds())
	emit(CommandConcurrentExecutions, own, float64(m.CurrentConcurrency()))
	emit(CommandMaxConcurrentExecutions, own, float64(m.RollingMaxConcurrency()))
	h := m.HealthCounts()
	emit(CommandHealthRequests, own, float64(h.TotalRequests))
	emit(CommandHealthErrors, own, float64(h.ErrorCount))
	if g, ok := m.AdaptiveGauges(); ok {
		emit(CommandAdaptiveLimit, own, float64(g.Limit))
		emit(CommandAdaptiveInflight, own, float64(g.Inflight))
		emit(CommandAdaptiveQueued, own, float64(g.Queued))
	}

	key := m.Key()
	b, ok := r.rt.Breakers().Lookup(key)
	if !ok {
		return
	}
	now := b.State()
	for _, s := range stateOrder {
		v := 0.0
		if breaker.State(s) == now {
			v = 1
		}
		emit(CircuitBreakerState, e.of(r.labels, states[s]), v)
	}
	counts := r.transitions(key)
	for i, p := range breakerPairs {
		if n := counts[p[0]][p[1]]; n != 0 {
			emit(CircuitBreakerTransitions, e.of(r.labels, transitions[i]), n)
		}
	}
}

func (r *Reader[L]) pool(emit Emit[L], e *entity[L], m *metrics.ThreadPoolMetrics) {
	own := e.of(r.labels, 0)
	for _, ev := range poolEventOrder {
		emit(ThreadPoolEvents, e.of(r.labels, poolEvents[ev]), float64(m.CumulativeCount(metrics.ThreadPoolEventType(ev))))
	}
	g := m.Gauges()
	emit(ThreadPoolActiveThreads, own, float64(g.ActiveCount))
	emit(ThreadPoolMaxActiveThreads, own, float64(m.RollingMaxActive()))
	emit(ThreadPoolQueuedTasks, own, float64(g.QueueSize))
	emit(ThreadPoolThreads, own, float64(g.PoolSize))
	emit(ThreadPoolLargestThreads, own, float64(g.LargestPoolSize))
	emit(ThreadPoolCoreThreads, own, float64(g.CorePoolSize))
	emit(ThreadPoolMaxThreads, own, float64(g.MaximumPoolSize))
	emit(ThreadPoolCompletedTasks, own, float64(g.CompletedTaskCount))
	emit(ThreadPoolTasks, own, float64(g.TaskCount))
}

func (r *Reader[L]) collapser(emit Emit[L], e *entity[L], m *metrics.CollapserMetrics) {
	for _, ev := range collapserEventOrder {
		emit(CollapserEvents, e.of(r.labels, collapserEvents[ev]), float64(m.CumulativeCount(metrics.CollapserEventType(ev))))
	}
	for i, p := range Percentiles {
		emit(CollapserBatchSize, e.of(r.labels, percentiles[i]), m.BatchSizePercentile(p.P))
	}
	emit(CollapserBatchSizeMean, e.of(r.labels, 0), m.BatchSizeMean())
}
