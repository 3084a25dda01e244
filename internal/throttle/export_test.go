package throttle

import "time"

// counts returns the requests and accepts of the window at now.
func (t *Throttle) counts(now time.Duration) counts {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance(now)
	return t.sum
}
