package hystrixtest

import (
	"slices"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// logSlot is one entry of a request log, by position (entries are only appended).
type logSlot struct {
	log *cache.RequestLog
	i   int
}

// eventsByName maps the request log's event names back to event types.
var eventsByName = func() map[string]metrics.EventType {
	m := map[string]metrics.EventType{}
	for _, e := range metrics.AllEventTypes() {
		m[e.String()] = e
	}
	return m
}()

// hitEvents returns the events the request log of rc shows for a cache hit of key that
// the Recorder has not placed yet (the first such entry: a hit is logged when it starts
// and tells its event once it has replayed its execution), nil if rc logs none. r.mu is
// held.
func (r *Recorder) hitEvents(rc *cache.RequestContext, key string) []metrics.EventType {
	if rc == nil {
		return nil
	}
	l := rc.Log()
	for i, entry := range l.Entries() {
		slot := logSlot{l, i}
		if r.hits[slot] || entry.CommandKey() != key {
			continue
		}
		events := entry.LogEvents()
		if !slices.ContainsFunc(events, func(ev cache.LogEvent) bool { return ev.Name == metrics.ResponseFromCache.String() }) {
			continue
		}
		if r.hits == nil {
			r.hits = map[logSlot]bool{}
		}
		r.hits[slot] = true
		var out []metrics.EventType
		for _, ev := range events {
			for range max(ev.Count, 1) {
				out = append(out, eventsByName[ev.Name])
			}
		}
		return out
	}
	return nil
}
