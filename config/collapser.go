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

	set *propSet
}

func newCollapserProperties(key string) (*CollapserProperties, *propSet) {
	s := newPropSet("collapser", key)
	c := &CollapserProperties{set: s}
	c.MaxRequestsInBatch = add(s, "maxRequestsInBatch", 0, intCodec, atLeast(0)).prop
	c.TimerDelay = add(s, "timerDelayInMilliseconds", 10*time.Millisecond, millisCodec, positive).prop
	c.RequestCacheEnabled = add(s, "requestCache.enabled", true, boolCodec, nil).prop
	statsWindow := add(s, "metrics.rollingStats.timeInMilliseconds", 10*time.Second, millisCodec, positive)
	c.RollingStatsWindow = statsWindow.prop
	statsBuckets := add(s, "metrics.rollingStats.numBuckets", 10, intCodec, atLeast(1))
	c.RollingStatsBuckets = statsBuckets.prop
	c.RollingPercentileEnabled = add(s, "metrics.rollingPercentile.enabled", true, boolCodec, nil).prop
	pctWindow := add(s, "metrics.rollingPercentile.timeInMilliseconds", time.Minute, millisCodec, positive)
	c.RollingPercentileWindow = pctWindow.prop
	pctBuckets := add(s, "metrics.rollingPercentile.numBuckets", 6, intCodec, atLeast(1))
	c.RollingPercentileBuckets = pctBuckets.prop
	c.RollingPercentileBucketSize = add(s, "metrics.rollingPercentile.bucketSize", 100, intCodec, atLeast(1)).prop
	s.checks = []check{divisible(statsWindow, statsBuckets), divisible(pctWindow, pctBuckets)}
	return c, s
}

// Key returns the collapser key.
func (c *CollapserProperties) Key() string { return c.set.key }

// Settings lists every collapser property with its full Hystrix name and current value.
func (c *CollapserProperties) Settings() []Setting { return c.set.settings() }
