package hystrixprom

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/telemetry"
)

// Collector is a prometheus.Collector of every command key, thread pool and collapser of
// a command.Runtime, read at scrape time. Register it once per Runtime; Close it when the
// Runtime is discarded. Concurrent scrapes are safe.
type Collector struct {
	r       *telemetry.Reader[[]*dto.LabelPair]
	descs   [telemetry.NumMetrics]*prometheus.Desc
	counter [telemetry.NumMetrics]bool
	// extra holds the label pairs that series carry beyond their key's own (event,
	// percentile, state, from, to), by name and value: a few dozen, shared by every key.
	extra sync.Map
	// gauges and counters are how many samples of each the last scrape sent: the size
	// of the next scrape's first chunk.
	gauges, counters atomic.Int64
}

var _ prometheus.Collector = (*Collector)(nil)

// New returns a Collector of rt. It counts circuit-breaker transitions from now on.
func New(rt *command.Runtime) *Collector {
	c := &Collector{}
	for i, m := range telemetry.Catalogue {
		c.descs[i] = prometheus.NewDesc(name(m), m.Help, m.Labels, nil)
		c.counter[i] = m.Kind == telemetry.Counter
	}
	c.r = telemetry.NewReader(rt, c.labels)
	return c
}

// name returns the Prometheus name of a catalogue metric: the prefix hystrix_, the dotted
// name with underscores, _seconds for durations and _total for counters.
func name(m telemetry.Metric) string {
	n := "hystrix_" + strings.ReplaceAll(m.Name, ".", "_")
	if m.Unit == "s" {
		n += "_seconds"
	}
	if m.Kind == telemetry.Counter {
		n += "_total"
	}
	return n
}

// labels makes the label pairs of a label set in name order, the order Prometheus keeps
// them in (so the registry need not sort a copy per sample): the key's own pairs (base)
// and the shared pairs of its other labels.
func (c *Collector) labels(base []*dto.LabelPair, names, values []string) []*dto.LabelPair {
	pairs := make([]*dto.LabelPair, 0, len(names))
	for i := range names {
		switch {
		case base == nil:
			pairs = append(pairs, &dto.LabelPair{Name: &names[i], Value: &values[i]})
		case i >= len(base):
			p, _ := c.extra.LoadOrStore([2]string{names[i], values[i]}, &dto.LabelPair{Name: &names[i], Value: &values[i]})
			pairs = append(pairs, p.(*dto.LabelPair))
		}
	}
	pairs = append(pairs, base...)
	slices.SortFunc(pairs, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	return pairs
}

// Describe sends the descriptors of every metric the Collector can emit.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect reads the Runtime's registries and sends one sample per series. The label
// pairs are the key's, made at its first scrape; the samples come out of a chunk per
// kind sized from the last scrape: a scrape allocates a few chunks, not a sample per
// series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	gauges := chunks[gauge]{size: c.gauges.Load()}
	counters := chunks[counter]{size: c.counters.Load()}
	c.r.Read(func(metric int, labels []*dto.LabelPair, v float64) {
		if c.counter[metric] {
			s := counters.next()
			s.desc, s.labels, s.value = c.descs[metric], labels, v
			s.counter.Value = &s.value
			ch <- s
			return
		}
		s := gauges.next()
		s.desc, s.labels, s.value = c.descs[metric], labels, v
		s.gauge.Value = &s.value
		ch <- s
	})
	c.gauges.Store(gauges.n)
	c.counters.Store(counters.n)
}

// Close stops counting breaker transitions. Scrapes after Close still work; the
// transition counters stop growing.
func (c *Collector) Close() { c.r.Close() }

// chunks hands out the samples of one scrape. The registry keeps pointers to them until
// the scrape is written out, so a chunk is never grown: when it is full the next one is
// made, as large as all the samples so far.
type chunks[S any] struct {
	free []S
	size int64 // of the first chunk
	n    int64 // samples handed out
}

func (c *chunks[S]) next() *S {
	if len(c.free) == 0 {
		c.free = make([]S, max(c.size, c.n, 64))
	}
	s := &c.free[0]
	c.free = c.free[1:]
	c.n++
	return s
}

// gauge is one gauge series' value in a scrape.
type gauge struct {
	desc   *prometheus.Desc
	labels []*dto.LabelPair // sorted by name; shared, never modified
	value  float64
	gauge  dto.Gauge // Value points to value
}

func (s *gauge) Desc() *prometheus.Desc { return s.desc }

func (s *gauge) Write(m *dto.Metric) error {
	m.Label, m.Gauge = s.labels, &s.gauge
	return nil
}

// counter is one counter series' value in a scrape.
type counter struct {
	desc    *prometheus.Desc
	labels  []*dto.LabelPair // sorted by name; shared, never modified
	value   float64
	counter dto.Counter // Value points to value
}

func (s *counter) Desc() *prometheus.Desc { return s.desc }

func (s *counter) Write(m *dto.Metric) error {
	m.Label, m.Counter = s.labels, &s.counter
	return nil
}
