package dashboard

import "time"

// NewStreamHandler returns the handler of /hystrix.stream: every interval (default
// 500 ms) one HystrixCommand frame per command, one HystrixThreadPool frame per thread
// pool and one HystrixCollapser frame per collapser of p.Snapshot(), in that order,
// then a ping. The handler stamps type and currentTime (the Clock's time of the
// interval, Unix milliseconds) and writes reportingHosts 0 as 1.
func NewStreamHandler(p Provider, opts ...Option) *Handler {
	return newHandler(DefaultInterval, func(f *frames, now time.Time) {
		s := p.Snapshot()
		ms := now.UnixMilli()
		for _, c := range s.Commands {
			c.Type, c.CurrentTime, c.ReportingHosts = TypeCommand, ms, hosts(c.ReportingHosts)
			f.data(&c)
		}
		for _, tp := range s.ThreadPools {
			tp.Type, tp.CurrentTime, tp.ReportingHosts = TypeThreadPool, ms, hosts(tp.ReportingHosts)
			f.data(&tp)
		}
		for _, c := range s.Collapsers {
			c.Type, c.CurrentTime, c.ReportingHosts = TypeCollapser, ms, hosts(c.ReportingHosts)
			f.data(&c)
		}
	}, opts)
}

// NewUtilizationHandler returns the handler of /hystrix/utilization.stream: one
// HystrixUtilization frame every interval (default 500 ms), then a ping.
func NewUtilizationHandler(p UtilizationProvider, opts ...Option) *Handler {
	return newHandler(DefaultUtilizationInterval, func(f *frames, _ time.Time) {
		u := p.Utilization()
		u.Type = TypeUtilization
		u.Commands = orEmpty(u.Commands)
		u.ThreadPools = orEmpty(u.ThreadPools)
		f.data(&u)
	}, opts)
}

// NewConfigHandler returns the handler of /hystrix/config.stream: one HystrixConfig
// frame every interval (default 5000 ms), then a ping.
func NewConfigHandler(p ConfigProvider, opts ...Option) *Handler {
	return newHandler(DefaultConfigInterval, func(f *frames, _ time.Time) {
		c := p.Config()
		c.Type = TypeConfig
		c.Commands = orEmpty(c.Commands)
		c.ThreadPools = orEmpty(c.ThreadPools)
		c.Collapsers = orEmpty(c.Collapsers)
		f.data(&c)
	}, opts)
}

func hosts(n int) int { return max(n, 1) }

// orEmpty makes a nil map encode as {} rather than null.
func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}
