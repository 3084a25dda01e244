package config

import "time"

// CollapserProperties are the properties of one collapser key, resolved as
// hystrix.collapser.<KEY>.X, then the value set in code, then
// hystrix.collapser.default.X, then the built-in default.
type CollapserProperties struct {
	// MaxRequestsInBatch: maxRequestsInBatch = 0 (>= 0; 0 means unbounded, Hystrix's
	// Integer.MAX_VALUE).
	MaxRequestsInBatch *Property[int]
	// TimerDelay: timerDelayInMilliseconds = 10 (> 0).
	TimerDelay *Property[time.Duration]
	// RequestCacheEnabled: requestCache.enabled = true.
	RequestCacheEnabled *Property[bool]
	// RollingStatsWindow: metrics.rollingStats.timeInMilliseconds = 10000 (> 0, a multiple
	// of RollingStatsBuckets).
	RollingStatsWindow *Property[time.Duration]
	// RollingStatsBuckets: metrics.rollingStats.numBuckets = 10 (>= 1).
	RollingStatsBuckets *Property[int]
	// RollingPercentileEnabled: metrics.rollingPercentile.enabled = true.
	RollingPercentileEnabled *Property[bool]
	// RollingPercentileWindow: metrics.rollingPercentile.timeInMilliseconds = 60000 (> 0, a
	// multiple of RollingPercentileBuckets).
	RollingPercentileWindow *Property[time.Duration]
	// RollingPercentileBuckets: metrics.rollingPercentile.numBuckets = 6 (>= 1).
	RollingPercentileBuckets *Property[int]
	// RollingPercentileBucketSize: metrics.rollingPercentile.bucketSize = 100 (>= 1).
	RollingPercentileBucketSize *Property[int]

	k keyState
}

type coll = CollapserProperties

// The Keys of the collapser properties: Collapser and the name of the field of
// CollapserProperties they set; the fields give defaults and ranges.
var (
	// CollapserMaxRequestsInBatch is maxRequestsInBatch.
	CollapserMaxRequestsInBatch = key("maxRequestsInBatch", 0, intCodec, atLeast(0),
		func(c *coll) **Property[int] { return &c.MaxRequestsInBatch })
	// CollapserTimerDelay is timerDelayInMilliseconds.
	CollapserTimerDelay = key("timerDelayInMilliseconds", 10*time.Millisecond, millisCodec, positive,
		func(c *coll) **Property[time.Duration] { return &c.TimerDelay })
	// CollapserRequestCacheEnabled is requestCache.enabled.
	CollapserRequestCacheEnabled = key("requestCache.enabled", true, boolCodec, nil,
		func(c *coll) **Property[bool] { return &c.RequestCacheEnabled })
	// CollapserRollingStatsWindow is metrics.rollingStats.timeInMilliseconds.
	CollapserRollingStatsWindow = key("metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive,
		func(c *coll) **Property[time.Duration] { return &c.RollingStatsWindow })
	// CollapserRollingStatsBuckets is metrics.rollingStats.numBuckets.
	CollapserRollingStatsBuckets = key("metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1),
		func(c *coll) **Property[int] { return &c.RollingStatsBuckets })
	// CollapserRollingPercentileEnabled is metrics.rollingPercentile.enabled.
	CollapserRollingPercentileEnabled = key("metrics.rollingPercentile.enabled", true, boolCodec, nil,
		func(c *coll) **Property[bool] { return &c.RollingPercentileEnabled })
	// CollapserRollingPercentileWindow is metrics.rollingPercentile.timeInMilliseconds.
	CollapserRollingPercentileWindow = key("metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive,
		func(c *coll) **Property[time.Duration] { return &c.RollingPercentileWindow })
	// CollapserRollingPercentileBuckets is metrics.rollingPercentile.numBuckets.
	CollapserRollingPercentileBuckets = key("metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1),
		func(c *coll) **Property[int] { return &c.RollingPercentileBuckets })
	// CollapserRollingPercentileBucketSize is metrics.rollingPercentile.bucketSize.
	CollapserRollingPercentileBucketSize = key("metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1),
		func(c *coll) **Property[int] { return &c.RollingPercentileBucketSize })
)

// collapserScope is the table of every collapser property, shared by every collapser key.
var collapserScope = func() *scope[coll] {
	sc := newScope("collapser", "collapser", func(c *coll) *keyState { return &c.k },
		CollapserMaxRequestsInBatch.d,
		CollapserTimerDelay.d,
		CollapserRequestCacheEnabled.d,
		CollapserRollingStatsWindow.d,
		CollapserRollingStatsBuckets.d,
		CollapserRollingPercentileEnabled.d,
		CollapserRollingPercentileWindow.d,
		CollapserRollingPercentileBuckets.d,
		CollapserRollingPercentileBucketSize.d,
	)
	sc.checks = []check[coll]{
		divisible(sc, "metrics.rollingStats.timeInMilliseconds", "metrics.rollingStats.numBuckets"),
		divisible(sc, "metrics.rollingPercentile.timeInMilliseconds", "metrics.rollingPercentile.numBuckets"),
	}
	return sc
}()

// Key returns the collapser key.
func (c *CollapserProperties) Key() string { return c.k.key }

// Settings lists every collapser property with its full Hystrix name and current value.
func (c *CollapserProperties) Settings() []Setting { return collapserScope.settings(c) }

func (c *CollapserProperties) state() *keyState { return &c.k }

func (c *CollapserProperties) refresh(lookup func(string) (string, bool), scratch *[]any) []*PropertyError {
	return collapserScope.refresh(c, lookup, scratch)
}
