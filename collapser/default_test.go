package collapser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestDefaultRuntime: a collapser whose Setter names no Runtime batches on the system
// clock, reads its properties from config.Default (dynamic ones too) and counts into
// metrics.Default, as the snippet of docs/collapsing.md does. The key is unique to the
// run: the default registries outlive every test.
func TestDefaultRuntime(t *testing.T) {
	key := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	prop := "hystrix.collapser." + key + ".maxRequestsInBatch"
	require.NoError(t, config.DefaultSource().Set(prop, "3"))
	t.Cleanup(func() { _ = config.DefaultSource().Apply(nil, []string{prop}) })
	rec := &recorder{}
	col, err := New(Setter{CollapserKey: key, Scope: GlobalScope,
		Properties: config.CollapserOverrides{"timerDelayInMilliseconds": "60000"}}, rec.batch())
	require.NoError(t, err)

	// a full batch fires at once; the timer (a minute on the system clock) never does
	vals, errs := results(t, queueAll(context.Background(), col, 1, 2, 3))
	assert.Equal(t, []string{"v1", "v2", "v3"}, vals)
	assert.Equal(t, []error{nil, nil, nil}, errs)
	assert.Equal(t, [][]int{{1, 2, 3}}, rec.allBatches(), "maxRequestsInBatch from config.Default")

	m := metrics.Default().Collapser(key)
	require.Eventually(t, func() bool { return m.CumulativeCount(metrics.BatchExecuted) == 1 },
		5*time.Second, 10*time.Millisecond, "metrics.Default rolls the batch in on the system clock")
	assert.Equal(t, int64(3), m.CumulativeCount(metrics.AddedToBatch))
}
