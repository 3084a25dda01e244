package cache

import (
	"log/slog"
	"sync"
	"time"
)

// maxLogEntries is how many commands one request log keeps; later ones are dropped and
// counted (Hystrix issue #53: a forgotten request context must not grow without bound).
const maxLogEntries = 1000

// LogEntry is one command execution as the request log sees it. A command adds itself when
// it starts and the log reads it when formatted, possibly while it still runs, so the
// methods must be safe to call concurrently with the execution.
type LogEntry interface {
	// CommandKey returns the command key name.
	CommandKey() string
	// LogEvents returns the events recorded so far, in event-type order, one element per
	// event type. Count is how many times it occurred; a Count above 1 is shown as
	// "NAMExCount", so set it only for the counted events (EMIT, FALLBACK_EMIT, COLLAPSED,
	// STREAM_RESUMED) and leave it at 0 or 1 otherwise.
	LogEvents() []LogEvent
	// ExecutionTime returns how long the run took; negative when it never ran (shown as 0ms).
	ExecutionTime() time.Duration
}

// LogEvent is one event type of a LogEntry: its name, e.g. "SUCCESS", and its count.
type LogEvent struct {
	Name  string
	Count int
}

// RequestLog records the commands executed during one request, up to maxLogEntries. It is
// safe for concurrent use.
type RequestLog struct {
	mu      sync.Mutex
	entries []LogEntry
	dropped int
	closed  bool
}

// Add appends e and reports whether it was kept. Past maxLogEntries it drops e, counts it
// and logs a warning the first time; after the request context is closed it drops e
// silently.
func (l *RequestLog) Add(e LogEntry) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	if len(l.entries) >= maxLogEntries {
		l.dropped++
		if l.dropped == 1 {
			slog.Warn("cache: request log full, ignoring further commands",
				"limit", maxLogEntries, "command", e.CommandKey())
		}
		return false
	}
	l.entries = append(l.entries, e)
	return true
}

// Entries returns a copy of the kept entries, oldest first.
func (l *RequestLog) Entries() []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LogEntry(nil), l.entries...)
}

// close stops the log and replaces its entries by what they show now. A closed request
// must not keep its commands: a caller's long-lived context can keep the request context
// reachable (a command's run context watches the caller's context), and with it the log.
func (l *RequestLog) close() {
	l.mu.Lock()
	l.closed = true // no entry is added from now on
	entries := append([]LogEntry(nil), l.entries...)
	l.mu.Unlock()
	for i, e := range entries { // outside the lock: an entry may read the log
		entries[i] = freeze(e)
	}
	l.mu.Lock()
	l.entries = entries
	l.mu.Unlock()
}

// frozenEntry is a LogEntry as it stood when its request was closed.
type frozenEntry struct {
	key    string
	events []LogEvent
	time   time.Duration
}

func (f *frozenEntry) CommandKey() string           { return f.key }
func (f *frozenEntry) LogEvents() []LogEvent        { return f.events }
func (f *frozenEntry) ExecutionTime() time.Duration { return f.time }

// freeze returns what e shows now, or e itself if reading it panics (String shows it as
// "Unknown").
func freeze(e LogEntry) (f LogEntry) {
	defer func() {
		if recover() != nil {
			f = e
		}
	}()
	return &frozenEntry{key: e.CommandKey(), events: e.LogEvents(), time: e.ExecutionTime()}
}
