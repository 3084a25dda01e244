package sse

import (
	"time"

	"github.com/rxhystrix/rxhystrix/dashboard/internal/wire"
)

// Snapshots renders /hystrix.stream: one HystrixCommand frame per command, one
// HystrixThreadPool frame per thread pool and one HystrixCollapser frame per collapser
// of snapshot(), in that order. It stamps type and currentTime (now, Unix milliseconds)
// and writes reportingHosts 0 as 1.
func Snapshots(snapshot func() wire.Snapshot) Render {
	return func(f *Frames, now time.Time) {
		s := snapshot()
		ms := now.UnixMilli()
		for _, c := range s.Commands {
			c.Type, c.CurrentTime, c.ReportingHosts = wire.TypeCommand, ms, hosts(c.ReportingHosts)
			f.Data(&c)
		}
		for _, tp := range s.ThreadPools {
			tp.Type, tp.CurrentTime, tp.ReportingHosts = wire.TypeThreadPool, ms, hosts(tp.ReportingHosts)
			f.Data(&tp)
		}
		for _, c := range s.Collapsers {
			c.Type, c.CurrentTime, c.ReportingHosts = wire.TypeCollapser, ms, hosts(c.ReportingHosts)
			f.Data(&c)
		}
	}
}

// Utilizations renders /hystrix/utilization.stream: one HystrixUtilization frame.
func Utilizations(utilization func() wire.Utilization) Render {
	return func(f *Frames, _ time.Time) {
		u := utilization()
		u.Type = wire.TypeUtilization
		u.Commands = orEmpty(u.Commands)
		u.ThreadPools = orEmpty(u.ThreadPools)
		f.Data(&u)
	}
}

// Configs renders /hystrix/config.stream: one HystrixConfig frame.
func Configs(config func() wire.Config) Render {
	return func(f *Frames, _ time.Time) {
		c := config()
		c.Type = wire.TypeConfig
		c.Commands = orEmpty(c.Commands)
		c.ThreadPools = orEmpty(c.ThreadPools)
		c.Collapsers = orEmpty(c.Collapsers)
		f.Data(&c)
	}
}

func hosts(n int) int { return max(n, 1) }

// orEmpty makes a nil map encode as {} rather than null.
func orEmpty[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}
