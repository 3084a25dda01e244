package cache

import "sync"

// RequestCache de-duplicates command executions within one request: the first command
// with a given (command key, cache key) starts the execution, and every later or
// concurrent one with the same keys shares it. What is stored is the in-flight execution
// (whatever start returns, e.g. a replaying observable or a future), not the finished
// value, so failures are shared too. It is safe for concurrent use.
type RequestCache struct {
	mu     sync.RWMutex
	calls  map[entryKey]*call
	closed bool
}

// entryKey keeps the two keys apart, so ("a:b", "c") and ("a", "b:c") never collide.
type entryKey struct{ command, cache string }

// call is one cached execution handle; done closes when start has returned or panicked.
type call struct {
	done chan struct{}
	v    any
	ok   bool // start returned normally
}

// GetOrStart returns the handle cached for (commandKey, cacheKey) with hit true, or, when
// there is none, calls start, caches what it returns and returns it with hit false.
// Concurrent callers with the same keys run start once: the others wait until it returns
// and get its result as a hit. start should therefore return quickly, a handle on the
// execution rather than its outcome, and must not call GetOrStart with the same keys.
// If start panics, nothing is cached, the panic propagates to its caller and a waiting
// duplicate becomes the new starter. On a closed cache start runs and nothing is cached.
func (c *RequestCache) GetOrStart(commandKey, cacheKey string, start func() any) (v any, hit bool) {
	k := entryKey{command: commandKey, cache: cacheKey}
	for {
		cl, started, closed := c.lookup(k)
		switch {
		case closed:
			return start(), false
		case started:
			c.run(k, cl, start)
			return cl.v, false
		}
		<-cl.done
		if cl.ok {
			return cl.v, true
		}
		// The starter panicked and removed its entry: try again.
	}
}

// lookup returns the call for k, creating it when absent; started reports that the caller
// created it and must run start, closed that the cache is closed (cl is then nil).
func (c *RequestCache) lookup(k entryKey) (cl *call, started, closed bool) {
	c.mu.RLock()
	cl, closed = c.calls[k], c.closed
	c.mu.RUnlock()
	if cl != nil || closed {
		return cl, false, closed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, false, true
	}
	if cl = c.calls[k]; cl != nil {
		return cl, false, false
	}
	if c.calls == nil {
		c.calls = make(map[entryKey]*call)
	}
	cl = &call{done: make(chan struct{})}
	c.calls[k] = cl
	return cl, true, false
}

// run calls start for cl and releases the waiters; a panicking start leaves no entry.
func (c *RequestCache) run(k entryKey, cl *call, start func() any) {
	defer func() {
		if !cl.ok {
			c.mu.Lock()
			if c.calls[k] == cl {
				delete(c.calls, k)
			}
			c.mu.Unlock()
		}
		close(cl.done)
	}()
	cl.v = start()
	cl.ok = true
}

// Clear removes the entry for (commandKey, cacheKey), so the next GetOrStart starts a new
// execution. Callers already sharing the old one keep it.
func (c *RequestCache) Clear(commandKey, cacheKey string) {
	c.mu.Lock()
	delete(c.calls, entryKey{command: commandKey, cache: cacheKey})
	c.mu.Unlock()
}

// len returns the number of cached entries.
func (c *RequestCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.calls)
}

func (c *RequestCache) close() {
	c.mu.Lock()
	c.calls = nil
	c.closed = true
	c.mu.Unlock()
}
