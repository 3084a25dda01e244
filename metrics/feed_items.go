package metrics

import "time"

// Completion is one command execution as the Completions feed delivers it: the command
// key, the ExecutionResult given to MarkComplete, and the registry clock's time when it
// was recorded (Hystrix's HystrixCommandCompletion).
type Completion struct {
	Key    string
	Result ExecutionResult
	Time   time.Time
}

// HealthSnapshot is one key's HealthCounts as the HealthSnapshots feed delivers it, cut
// at the healthSnapshot boundary Time.
type HealthSnapshot struct {
	Key  string
	Time time.Time
	HealthCounts
}

// CountSnapshot is one key's rolling and cumulative event counts and rolling maximum
// concurrency as the CountSnapshots feed delivers them, cut at the rollingStats boundary
// Time. Its methods read as CommandMetrics' do.
type CountSnapshot struct {
	Key                 string
	Time                time.Time
	rolling, cumulative [numSlots]int64
	maxConcurrency      int64
}

// RollingCount returns the number of events of type e in the rollingStats window;
// COMMAND_MAX_ACTIVE returns RollingMaxConcurrency.
func (c CountSnapshot) RollingCount(e EventType) int64 {
	if e == CommandMaxActive {
		return c.maxConcurrency
	}
	if int(e) >= numSlots {
		return 0
	}
	return c.rolling[e]
}

// CumulativeCount returns the number of events of type e since the key's metrics were
// created.
func (c CountSnapshot) CumulativeCount(e EventType) int64 {
	if int(e) >= numSlots {
		return 0
	}
	return c.cumulative[e]
}

// RollingMaxConcurrency returns the highest concurrency in the rollingStats window.
func (c CountSnapshot) RollingMaxConcurrency() int64 { return c.maxConcurrency }

// completed offers one completion of s's key to the completion subscriptions that follow
// it (the caller of MarkComplete, whose counters took stripe i). A full subscription
// costs a flag load and an add on stripe i of its Feed's misses; the item is built only
// for a subscription with room.
func (l *feedLists) completed(s *series, i uint32, res *ExecutionResult) {
	for _, sub := range l.completions {
		switch {
		case !sub.wants(s.key):
		case sub.full.Load():
			sub.misses.miss(i)
		default:
			offerCompletion(sub, s, i, res)
		}
	}
}

// offerCompletion builds the completion and offers it to sub.
func offerCompletion(sub *subscription[Completion], s *series, i uint32, res *ExecutionResult) {
	sub.offer(Completion{Key: s.key, Result: *res, Time: s.reg.clk.Now()}, i)
}

// rolled offers the snapshots of a command key's windows of width w, just cut at the
// boundary at (Unix ns), to the subscriptions that follow it (roll only).
func (l *feedLists) rolled(s *series, w time.Duration, at int64) {
	m := s.health
	if m.hw.width == w {
		h := HealthSnapshot{Key: s.key, Time: time.Unix(0, at), HealthCounts: m.HealthCounts()}
		for _, sub := range l.health {
			if sub.wants(s.key) {
				sub.offer(h, 0)
			}
		}
	}
	if s.stats.width != w {
		return
	}
	var c CountSnapshot
	made := false
	for _, sub := range l.counts {
		if !sub.wants(s.key) {
			continue
		}
		if !made {
			c, made = CountSnapshot{Key: s.key, Time: time.Unix(0, at), maxConcurrency: s.stats.max.Load()}, true
			for i := range s.stats.rolling {
				c.rolling[i], c.cumulative[i] = s.stats.rolling[i].Load(), s.stats.cumulative[i].Load()
			}
		}
		sub.offer(c, 0)
	}
}
