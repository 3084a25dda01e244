package adaptivelimit

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rxhystrix/rxhystrix/adaptive"
)

// Settings configure a Limiter. The zero value of a field takes the default in its doc.
type Settings struct {
	Algorithm    Algorithm     // Gradient2{} when nil
	MinLimit     int           // 1
	MaxLimit     int           // 200
	InitialLimit int           // 4 (see the package doc: start low)
	Window       time.Duration // a window's length: 250 ms
	MinSamples   int           // a window's fewest samples: 10
	// Smoothing is the weight of a window's new limit against the current one (0.4).
	Smoothing float64
	// Backoff scales the limit down after a window with drops (0.9).
	Backoff float64
	// QueueSize is how many calls may wait for a permit (0: none wait).
	QueueSize int
	// Reserved is, for each criticality, the share of the limit (0..1) that lower levels
	// may not use; the shares add up to at most 0.9. Reserved[Sheddable] is unused.
	Reserved [adaptive.NumCriticalities]float64
}

// withDefaults returns s with its zero fields set to their defaults.
func (s Settings) withDefaults() Settings {
	if s.Algorithm == nil {
		s.Algorithm = Gradient2{}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.MinLimit, 1)
	def(&s.MaxLimit, 200)
	def(&s.InitialLimit, 4)
	def(&s.MinSamples, 10)
	if s.Window == 0 {
		s.Window = 250 * time.Millisecond
	}
	if s.Smoothing == 0 {
		s.Smoothing = 0.4
	}
	if s.Backoff == 0 {
		s.Backoff = 0.9
	}
	return s
}

// Outcome is how a call that held a permit ended, as its Release reports it.
type Outcome uint8

const (
	// Succeeded: the call ended and its RTT is a sample.
	Succeeded Outcome = iota
	// Dropped: the call timed out or failed (the limit backs off).
	Dropped
	// Ignored: the call says nothing about the dependency (the caller left).
	Ignored
)

// Limiter is an adaptive concurrency limit (see the package doc). Its methods may be
// called from any goroutine; it starts none.
type Limiter struct {
	// state is the limit (high 32 bits) and the calls in flight (low 32 bits): one word, so
	// an admission checks the count against the limit it reads with it.
	state   atomic.Uint64
	waiting atomic.Int32 // waiters in the queue
	refused atomic.Bool  // a call was refused or queued in the current window
	s       atomic.Pointer[settings]
	onAdmit func(state uint64) // tests: sees the state word of every admission from the queue

	mu       sync.Mutex
	limit    float64 // the unrounded limit
	start    time.Duration
	started  bool
	n        int
	sum      time.Duration
	drops    int
	maxIn    int
	baseline time.Duration
	queue    []*Waiter // oldest first
}

// settings are a Limiter's Settings with the admission shares worked out.
type settings struct {
	Settings
	share [adaptive.NumCriticalities]float64 // the part of the limit each level may use
}

// NewLimiter returns a limiter with settings s; invalid settings are clamped into range.
func NewLimiter(s Settings) *Limiter {
	l := &Limiter{}
	l.Configure(s)
	return l
}

// Configure replaces the limiter's settings; its limit is kept, clamped to the new range
// (a limiter that has not yet seen a window starts again at the new InitialLimit).
func (l *Limiter) Configure(s Settings) {
	s = s.withDefaults()
	s.MinLimit = max(1, min(s.MinLimit, math.MaxInt32))
	s.MaxLimit = max(s.MinLimit, min(s.MaxLimit, math.MaxInt32))
	st := &settings{Settings: s}
	above := 0.0
	for c := adaptive.NumCriticalities - 1; c >= 0; c-- {
		st.share[c] = max(0, 1-above)
		above += s.Reserved[c]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.s.Store(st)
	if !l.started && l.baseline == 0 {
		l.limit = float64(s.InitialLimit)
	}
	l.limit = min(float64(s.MaxLimit), max(float64(s.MinLimit), l.limit))
	l.publish()
	l.grant()
}

// Limit returns the current limit.
func (l *Limiter) Limit() int { return int(l.state.Load() >> 32) }

// Inflight returns the calls holding a permit.
func (l *Limiter) Inflight() int { return int(uint32(l.state.Load())) }

// Queued returns the calls waiting in the queue.
func (l *Limiter) Queued() int { return int(l.waiting.Load()) }

// threshold returns how many calls in flight still admit a call of criticality c under
// limit lim.
func (st *settings) threshold(lim uint32, c adaptive.Criticality) uint32 {
	if f := st.share[c]; f < 1 {
		return uint32(f * float64(lim))
	}
	return lim
}

// TryAcquire takes a permit for a call of criticality c if the limit admits it, without
// waiting. It returns nil when it took one (give it back with Release), or the reason it
// did not (ErrLimit, ErrCriticality).
func (l *Limiter) TryAcquire(c adaptive.Criticality) error {
	_, err := l.tryAcquire(c)
	return err
}

// tryAcquire is TryAcquire returning the state word its admission stored.
func (l *Limiter) tryAcquire(c adaptive.Criticality) (uint64, error) {
	if int(c) >= adaptive.NumCriticalities {
		c = adaptive.Critical
	}
	st := l.s.Load()
	for {
		s := l.state.Load()
		lim, in := uint32(s>>32), uint32(s)
		if in >= st.threshold(lim, c) {
			if !l.refused.Load() {
				l.refused.Store(true)
			}
			if in < lim {
				return s, adaptive.ErrCriticality
			}
			return s, adaptive.ErrLimit
		}
		if l.state.CompareAndSwap(s, s+1) {
			return s + 1, nil
		}
	}
}

// Acquire is TryAcquire that, when the limit refuses and the limiter has a queue, queues
// the call: it returns a Waiter to wait on (and nil error), or the reason it refused
// (ErrLimit, ErrCriticality, ErrQueueFull). A nil Waiter and a nil error mean a permit
// was taken at once.
func (l *Limiter) Acquire(c adaptive.Criticality) (*Waiter, error) {
	err := l.TryAcquire(c)
	if err == nil || l.s.Load().QueueSize == 0 {
		return nil, err
	}
	return l.enqueue(c)
}

// Waiter is a call waiting in a Limiter's queue.
type Waiter struct {
	c       adaptive.Criticality
	done    chan struct{} // closed once the waiter was granted a permit or pushed out
	granted bool          // written before done is closed
	err     error         // why it was pushed out
}

// Done returns a channel closed when the waiter has a permit or was pushed out of the
// queue: then call Result.
func (w *Waiter) Done() <-chan struct{} { return w.done }

// Result returns, once Done is closed, nil if the waiter holds a permit (give it back
// with Release) or why it was pushed out.
func (w *Waiter) Result() error {
	if w.granted {
		return nil
	}
	return w.err
}

func (l *Limiter) enqueue(c adaptive.Criticality) (*Waiter, error) {
	st := l.s.Load()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) >= st.QueueSize {
		i := l.lowestOldest()
		if l.queue[i].c > c {
			return nil, adaptive.ErrQueueFull
		}
		l.remove(i).pushOut(adaptive.ErrQueueFull)
	}
	w := &Waiter{c: c, done: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.waiting.Add(1)
	l.grant() // a permit released since TryAcquire failed, before waiting counted this one
	return w, nil
}

// Cancel takes w out of the queue when its caller stops waiting. It reports whether w
// holds a permit after all (granted as the caller gave up): the caller must Release it.
func (l *Limiter) Cancel(w *Waiter) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, q := range l.queue {
		if q == w {
			l.remove(i)
			return false
		}
	}
	<-w.done // granted or pushed out before the lock: done is closed already
	return w.granted
}

// Expire pushes w out of the queue with ErrQueueTimeout if it is still waiting: the
// caller's bound on the wait (a timer's function, say).
func (l *Limiter) Expire(w *Waiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, q := range l.queue {
		if q == w {
			l.remove(i).pushOut(adaptive.ErrQueueTimeout)
			return
		}
	}
}

// lowestOldest returns the index of the queue's oldest waiter of the lowest criticality.
func (l *Limiter) lowestOldest() int {
	best := 0
	for i, w := range l.queue {
		if w.c < l.queue[best].c {
			best = i
		}
	}
	return best
}

// highestNewest returns the index of the queue's newest waiter of the highest criticality.
func (l *Limiter) highestNewest() int {
	best := len(l.queue) - 1
	for i := best; i >= 0; i-- {
		if l.queue[i].c > l.queue[best].c {
			best = i
		}
	}
	return best
}

func (l *Limiter) remove(i int) *Waiter {
	w := l.queue[i]
	l.queue = append(l.queue[:i], l.queue[i+1:]...)
	l.waiting.Add(-1)
	return w
}

func (w *Waiter) pushOut(err error) {
	w.err = err
	close(w.done)
}

// grant gives permits to waiters, highest criticality and newest first, while the limit
// admits them. Called with l.mu held.
func (l *Limiter) grant() {
	st := l.s.Load()
	for len(l.queue) > 0 {
		i := l.highestNewest()
		if _, ok := l.admit(st, l.queue[i].c); ok {
			w := l.remove(i)
			w.granted = true
			close(w.done)
			continue
		}
		return
	}
}

// admit takes a permit for criticality c if the limit admits it, and returns the state
// word its admission stored.
func (l *Limiter) admit(st *settings, c adaptive.Criticality) (uint64, bool) {
	for {
		s := l.state.Load()
		if uint32(s) >= st.threshold(uint32(s>>32), c) {
			return s, false
		}
		if l.state.CompareAndSwap(s, s+1) {
			if l.onAdmit != nil {
				l.onAdmit(s + 1)
			}
			return s + 1, true
		}
	}
}

// Release gives back a permit of a call that ended at now (any monotonic offset, the same
// for every call) after rtt, with outcome o: the sample the limit learns from.
func (l *Limiter) Release(now, rtt time.Duration, o Outcome) {
	in := int(uint32(l.state.Add(^uint64(0)))) + 1 // the count in flight this call was part of
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiting.Load() > 0 {
		l.grant()
	}
	switch o {
	case Succeeded:
		l.n++
		l.sum += rtt
	case Dropped:
		l.drops++
	}
	l.maxIn = max(l.maxIn, in)
	if !l.started {
		l.start, l.started = now, true
	}
	st := l.s.Load()
	if now-l.start < st.Window || l.n+l.drops < st.MinSamples {
		return
	}
	l.closeWindow(st, now)
}

// closeWindow hands the window to the algorithm and publishes the new limit. Called with
// l.mu held.
func (l *Limiter) closeWindow(st *settings, now time.Duration) {
	w := Window{Samples: l.n, Drops: l.drops, MaxInflight: l.maxIn, Refused: l.refused.Load()}
	if l.n > 0 {
		w.MeanRTT = l.sum / time.Duration(l.n)
		if w.MeanRTT > 0 && (l.baseline == 0 || w.MeanRTT < l.baseline) {
			l.baseline = w.MeanRTT
		}
	}
	w.Baseline = l.baseline
	next := l.limit
	switch {
	case w.Drops > 0:
		next = l.limit * st.Backoff
	case w.MeanRTT > 0:
		next = (1-st.Smoothing)*l.limit + st.Smoothing*st.Algorithm.Next(l.limit, w)
	}
	l.limit = min(float64(st.MaxLimit), max(float64(st.MinLimit), next))
	l.start, l.n, l.sum, l.drops, l.maxIn = now, 0, 0, 0, 0
	l.refused.Store(false)
	l.publish()
	l.grant()
}

// publish stores the rounded limit next to the count in flight. Called with l.mu held.
func (l *Limiter) publish() {
	lim := uint64(math.Round(l.limit))
	for {
		s := l.state.Load()
		if l.state.CompareAndSwap(s, lim<<32|uint64(uint32(s))) {
			return
		}
	}
}
