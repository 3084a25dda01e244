package cache

import (
	"strconv"
	"strings"
)

// String formats the log the way Hystrix's HystrixRequestLog.getExecutedCommandsAsString
// does, for a response header or a log line:
//
//	GetUser[SUCCESS][12ms], GetUser[SUCCESS, RESPONSE_FROM_CACHE][0ms]
//	TestCommand[SUCCESS][15ms]x4
//	Stream[EMITx5, FAILURE, FALLBACK_EMITx6, FALLBACK_SUCCESS][100ms]
//	Pending[Executed][0ms]
//
// Each entry is shown as its command key and its events in brackets ("[Executed]" when it
// has none yet), then its run time in whole milliseconds. Entries with the same key and
// events are folded into one, wherever they occur, at the position of the first: the time
// is the sum and "xN" gives how many. An empty log gives "". An entry that panics while
// being read gives "Unknown", as Hystrix does for any failure here.
//
// Unlike Hystrix, the time of a folded group is always the sum: Hystrix resets it to 0
// when a later duplicate has a zero run time.
func (l *RequestLog) String() (s string) {
	entries := l.Entries()
	defer func() {
		if r := recover(); r != nil {
			s = "Unknown"
		}
	}()
	type group struct {
		display string
		millis  int64
		count   int
	}
	var groups []group
	index := make(map[string]int, len(entries))
	var b strings.Builder
	for _, e := range entries {
		b.Reset()
		writeDisplay(&b, e)
		display := b.String()
		millis := max(e.ExecutionTime().Milliseconds(), 0)
		if i, ok := index[display]; ok {
			groups[i].millis += millis
			groups[i].count++
			continue
		}
		index[display] = len(groups)
		groups = append(groups, group{display: display, millis: millis, count: 1})
	}
	b.Reset()
	for i, g := range groups {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.display)
		b.WriteByte('[')
		b.WriteString(strconv.FormatInt(g.millis, 10))
		b.WriteString("ms]")
		if g.count > 1 {
			b.WriteByte('x')
			b.WriteString(strconv.Itoa(g.count))
		}
	}
	return b.String()
}

// writeDisplay writes "Key[EV1, EV2xN]" or "Key[Executed]".
func writeDisplay(b *strings.Builder, e LogEntry) {
	b.WriteString(e.CommandKey())
	events := e.LogEvents()
	if len(events) == 0 {
		b.WriteString("[Executed]")
		return
	}
	b.WriteByte('[')
	for i, ev := range events {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ev.Name)
		if ev.Count > 1 {
			b.WriteByte('x')
			b.WriteString(strconv.Itoa(ev.Count))
		}
	}
	b.WriteByte(']')
}
