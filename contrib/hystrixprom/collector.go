package hystrixprom

import (
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/internal/telemetry"
)

// Collector is a prometheus.Collector of every command key, thread pool and collapser of
// a command.Runtime, read at scrape time. Register it once per Runtime; Close it when the
// Runtime is discarded. Concurrent scrapes are safe.
type Collector struct {
	r       *telemetry.Reader
	descs   [telemetry.NumMetrics]*prometheus.Desc
	counter [telemetry.NumMetrics]bool
	// sorted holds, per metric, its label positions in label-name order: the order
	// Prometheus keeps label pairs in, so the registry need not sort a copy per sample.
	sorted [telemetry.NumMetrics][]int
}

var _ prometheus.Collector = (*Collector)(nil)

// New returns a Collector of rt. It counts circuit-breaker transitions from now on.
func New(rt *command.Runtime) *Collector {
	c := &Collector{r: telemetry.NewReader(rt)}
	for i, m := range telemetry.Catalogue {
		c.descs[i] = prometheus.NewDesc(name(m), m.Help, m.Labels, nil)
		c.counter[i] = m.Kind == telemetry.Counter
		pos := make([]int, len(m.Labels))
		for j := range pos {
			pos[j] = j
		}
		slices.SortFunc(pos, func(a, b int) int { return strings.Compare(m.Labels[a], m.Labels[b]) })
		c.sorted[i] = pos
	}
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

// Describe sends the descriptors of every metric the Collector can emit.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect reads the Runtime's registries and sends one sample per series. A scrape
// shares one label pair among all the samples that carry it (a key's command, group
// and thread_pool pairs, the event names): a scrape of 1,000 keys builds about 24,000
// samples, and building each pair once saves most of their allocations.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	pairs := map[[2]string]*dto.LabelPair{}
	c.r.Read(func(metric int, v float64, labels []string) {
		names := telemetry.Catalogue[metric].Labels
		s := &sample{desc: c.descs[metric], value: v, labels: make([]*dto.LabelPair, len(labels))}
		for j, i := range c.sorted[metric] {
			p := pairs[[2]string{names[i], labels[i]}]
			if p == nil {
				n, v := names[i], labels[i]
				p = &dto.LabelPair{Name: &n, Value: &v}
				pairs[[2]string{n, v}] = p
			}
			s.labels[j] = p
		}
		if c.counter[metric] {
			s.counter.Value = &s.value
		} else {
			s.gauge.Value = &s.value
		}
		ch <- s
	})
}

// Close stops counting breaker transitions. Scrapes after Close still work; the
// transition counters stop growing.
func (c *Collector) Close() { c.r.Close() }

// sample is one series' value, written with label pairs shared within a scrape.
type sample struct {
	desc    *prometheus.Desc
	value   float64
	labels  []*dto.LabelPair // sorted by name; shared, never modified
	counter dto.Counter      // Value set for counters
	gauge   dto.Gauge        // Value set for gauges
}

func (s *sample) Desc() *prometheus.Desc { return s.desc }

func (s *sample) Write(m *dto.Metric) error {
	m.Label = s.labels
	if s.counter.Value != nil {
		m.Counter = &s.counter
	} else {
		m.Gauge = &s.gauge
	}
	return nil
}
