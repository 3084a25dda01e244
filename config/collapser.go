package config

import "time"

// CollapserProperties are the properties of one collapser key, resolved as
// hystrix.collapser.<KEY>.X, then the value set in code, then
// hystrix.collapser.default.X, then the built-in default.
type CollapserProperties struct{ k keyState }

type coll = CollapserProperties

// The collapser properties of Hystrix (read one with its Key:
// config.CollapserTimerDelay.In(p).Get()).
var (
	// CollapserMaxRequestsInBatch is maxRequestsInBatch = 0 (>= 0; 0 means unbounded,
	// Hystrix's Integer.MAX_VALUE).
	CollapserMaxRequestsInBatch = key(collapserScope, "maxRequestsInBatch", 0, intCodec, atLeast(0))
	// CollapserTimerDelay is timerDelayInMilliseconds = 10 (> 0).
	CollapserTimerDelay = key(collapserScope, "timerDelayInMilliseconds", 10*time.Millisecond, waitCodec, positive)
	// CollapserRequestCacheEnabled is requestCache.enabled = true.
	CollapserRequestCacheEnabled = key(collapserScope, "requestCache.enabled", true, boolCodec, nil)
	// CollapserRollingStatsWindow is metrics.rollingStats.timeInMilliseconds = 10000 (> 0, a
	// multiple of RollingStatsBuckets).
	CollapserRollingStatsWindow = key(collapserScope, "metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive)
	// CollapserRollingStatsBuckets is metrics.rollingStats.numBuckets = 10 (>= 1).
	CollapserRollingStatsBuckets = key(collapserScope, "metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1))
	// CollapserRollingPercentileEnabled is metrics.rollingPercentile.enabled = true.
	CollapserRollingPercentileEnabled = key(collapserScope, "metrics.rollingPercentile.enabled", true, boolCodec, nil)
	// CollapserRollingPercentileWindow is metrics.rollingPercentile.timeInMilliseconds = 60000
	// (> 0, a multiple of RollingPercentileBuckets).
	CollapserRollingPercentileWindow = key(collapserScope, "metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive)
	// CollapserRollingPercentileBuckets is metrics.rollingPercentile.numBuckets = 6 (>= 1).
	CollapserRollingPercentileBuckets = key(collapserScope, "metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1))
	// collapserRollingPercentileBucketSize is metrics.rollingPercentile.bucketSize = 100
	// (>= 1), accepted for Hystrix files and not used: the histograms keep every size.
	collapserRollingPercentileBucketSize = key(collapserScope, "metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1))
)

// collapserScope is the table of every collapser property, shared by every collapser key.
// collapserScope is the table of every collapser property, shared by every collapser key; the
// properties join it as they are declared.
var collapserScope = newScope("collapser", "collapser", func(o *coll) *keyState { return &o.k })

func init() {
	sc := collapserScope
	sc.checks = []check[coll]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		divisible(sc, "metrics.rollingPercentile.timeInMilliseconds", "metrics.rollingPercentile.numBuckets"),
	}
}

// Key returns the collapser key.
func (c *CollapserProperties) Key() string { return c.k.key }

// Settings lists every collapser property with its full Hystrix name and current value.
func (c *CollapserProperties) Settings() []Setting { return collapserScope.settings(c) }

func (c *CollapserProperties) state() *keyState { return &c.k }

func (c *CollapserProperties) refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	return collapserScope.refresh(c, lookup, scratch)
}
