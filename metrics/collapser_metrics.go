package metrics

import "github.com/rxhystrix/rxhystrix/config"

// CollapserMetrics are the metrics of one collapser key: batches, requests batched and
// cache hits (rolling and cumulative) and the batch size distribution. The collapser
// package writes them (MarkBatch, MarkResponseFromCache); everything else reads.
type CollapserMetrics struct {
	s                 *series
	percentileEnabled *config.Property[bool]
}

func (r *Registry) newCollapser(key string, p *config.CollapserProperties) *CollapserMetrics {
	w := defaultWindows
	if p != nil {
		w.stats = windowOf(config.CollapserRollingStatsWindow.In(p).Get(), config.CollapserRollingStatsBuckets.In(p).Get())
		w.pct = windowOf(config.CollapserRollingPercentileWindow.In(p).Get(), config.CollapserRollingPercentileBuckets.In(p).Get())
		w.pctEnabled = config.CollapserRollingPercentileEnabled.In(p)
	}
	m := &CollapserMetrics{s: newSeries(r, key, NumCollapserEventTypes, w.stats), percentileEnabled: w.pctEnabled}
	m.s.pct = newPctWindow(w.pct.width, w.pct.size, 1)
	m.s.owner = m
	m.s.seal()
	return m
}

// Key returns the collapser key.
func (m *CollapserMetrics) Key() string { return m.s.key }

// MarkBatch records one batch of size requests: BATCH_EXECUTED + 1, ADDED_TO_BATCH + size,
// and size into the batch size distribution.
func (m *CollapserMetrics) MarkBatch(size int) {
	size = max(size, 0)
	st := m.s.c.pick()
	st.n[BatchExecuted].Add(1)
	st.n[AddedToBatch].Add(uint32(size))
	if m.percentileEnabled.Get() {
		st.sum[0].Add(uint64(size))
		m.s.pct.hist[0].record(int64(size))
	}
	m.s.touch()
}

// MarkResponseFromCache records one request answered from the collapser's request cache.
func (m *CollapserMetrics) MarkResponseFromCache() {
	m.s.c.pick().n[CollapserResponseFromCache].Add(1)
	m.s.touch()
}

// RollingCount returns the events of type e in the rollingStats window.
func (m *CollapserMetrics) RollingCount(e CollapserEventType) int64 {
	if int(e) >= NumCollapserEventTypes {
		return 0
	}
	return m.s.stats.rolling[e].Load()
}

// CumulativeCount returns the events of type e since the key's metrics were created, up
// to the last closed rollingStats bucket.
func (m *CollapserMetrics) CumulativeCount(e CollapserEventType) int64 {
	if int(e) >= NumCollapserEventTypes {
		return 0
	}
	return m.s.stats.cumulative[e].Load()
}

// BatchSizePercentile returns the p-th percentile (0..100) of batch sizes in the
// rollingPercentile window, within 1.6 % (exact below 64); 0 when none.
func (m *CollapserMetrics) BatchSizePercentile(p float64) float64 {
	return float64(m.s.pct.view.Load().percentile(0, p))
}

// BatchSizeMean returns the exact mean batch size in the rollingPercentile window.
func (m *CollapserMetrics) BatchSizeMean() float64 { return m.s.pct.view.Load().mean(0) }
