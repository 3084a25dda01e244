package cache

// isClosed reports whether Close has been called.
func (rc *RequestContext) isClosed() bool { return rc.closed.Load() }

// droppedCount returns how many entries were dropped because the log was full.
func (l *RequestLog) droppedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}
