package collapser

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestCollapserMetrics(t *testing.T) {
	e := newEnv(t)
	rec := &recorder{}
	b := rec.batch()
	b.CacheKey = itoa
	col := newCollapser(t, e.setter("Metered", GlobalScope, "maxRequestsInBatch", "4"), b)

	results(t, queueAll(context.Background(), col, 1, 2, 3, 4))   // full: size 4
	fs := queueAll(context.Background(), col, 5, 5, 6)            // one hit, size 2
	fs = append(fs, queueAll(context.Background(), col, 5, 5)...) // two more hits
	e.clk.Advance(10 * time.Millisecond)
	results(t, fs)
	assert.Equal(t, []int{2, 4}, rec.sizes())

	e.roll(time.Second)
	m := e.rt.Metrics().Collapser("Metered")
	assert.Equal(t, int64(2), m.RollingCount(metrics.BatchExecuted))
	assert.Equal(t, int64(6), m.RollingCount(metrics.AddedToBatch))
	assert.Equal(t, int64(3), m.RollingCount(metrics.CollapserResponseFromCache))
	assert.Equal(t, int64(6), m.CumulativeCount(metrics.AddedToBatch))

	e.roll(10 * time.Second) // the rollingPercentile bucket (10 s) closes
	assert.InDelta(t, 3.0, m.BatchSizeMean(), 1e-9)
	assert.InEpsilon(t, 4.0, m.BatchSizePercentile(100), 0.0101)
	assert.InEpsilon(t, 2.0, m.BatchSizePercentile(0), 0.0101)
}
