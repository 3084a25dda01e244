package metrics

import "github.com/rxhystrix/rxhystrix/config"

// CollapserMetrics are the metrics of one collapser key: batches, requests batched and
// cache hits (rolling and cumulative) and the batch size distribution.
type CollapserMetrics struct {
	s                 *series
	percentileEnabled *config.Property[bool]
}

// Key returns the collapser key.
func (m *CollapserMetrics) Key() string { return m.s.key }

// MarkBatch records one batch of size requests: BATCH_EXECUTED + 1, ADDED_TO_BATCH + size,
// and size into the batch size distribution.
func (m *CollapserMetrics) MarkBatch(size int) {
	ev := event{kind: evCollapserBatch, a: int64(max(size, 0)), b: -1}
	if m.percentileEnabled.Get() {
		ev.b = 0
	}
	m.s.publish(ev)
}

// MarkResponseFromCache records one request answered from the collapser's request cache.
func (m *CollapserMetrics) MarkResponseFromCache() {
	m.s.publish(event{kind: evCollapserCache})
}

// RollingCount returns the events of type e in the rollingStats window.
func (m *CollapserMetrics) RollingCount(e CollapserEventType) int64 {
	if int(e) >= NumCollapserEventTypes {
		return 0
	}
	return m.s.rolling[e].Load()
}

// CumulativeCount returns the events of type e since the key's metrics were created.
func (m *CollapserMetrics) CumulativeCount(e CollapserEventType) int64 {
	if int(e) >= NumCollapserEventTypes {
		return 0
	}
	return m.s.cumulative[e].Load()
}

// BatchSizePercentile returns the p-th percentile (0..100) of batch sizes in the
// rollingPercentile window, within 1% relative accuracy; 0 when none.
func (m *CollapserMetrics) BatchSizePercentile(p float64) float64 {
	return m.s.dist.view.Load().percentile(0, p)
}

// BatchSizeMean returns the exact mean batch size in the rollingPercentile window.
func (m *CollapserMetrics) BatchSizeMean() float64 { return m.s.dist.view.Load().mean(0) }
