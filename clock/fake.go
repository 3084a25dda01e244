package clock

import (
	"runtime"
	"sort"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told to. It is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	timers  []*fakeTimer
	changed *sync.Cond
}

// NewFake returns a fake clock that reads start until advanced.
func NewFake(start time.Time) *Fake {
	f := &Fake{now: start}
	f.changed = sync.NewCond(&f.mu)
	return f
}

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Since returns the fake time elapsed since t.
func (f *Fake) Since(t time.Time) time.Duration { return f.Now().Sub(t) }

// NewTimer returns a timer that fires when the fake time reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	return f.add(d, make(chan time.Time, 1), nil)
}

// AfterFunc calls fn on the goroutine that advances the clock past now+d.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	return f.add(d, nil, fn)
}

// Advance moves the time forward by d, firing due timers in deadline order. A timer
// created by a callback during Advance fires in the same call if it falls due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	end := f.now.Add(d)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		t := f.nextDue(end)
		if t == nil {
			f.now = end
			f.mu.Unlock()
			return
		}
		f.now = t.when
		f.remove(t)
		f.mu.Unlock()
		t.fire()
	}
}

// Run moves the time forward by step, again and again, each time after a pause of
// `every` of real time (0: the goroutine only yields), on a goroutine of its own, until
// the returned stop is called; stop waits for that goroutine. It makes a fake clock run
// fast beside code under test that runs flat out.
func (f *Fake) Run(step, every time.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			f.Advance(step)
			if every > 0 {
				time.Sleep(every)
			} else {
				runtime.Gosched()
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(quit)
		<-done
	})
}

// Pending returns how many timers are waiting to fire.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// BlockUntil waits until at least n timers are pending, so a test can advance the clock
// only after the code under test has armed its timers.
func (f *Fake) BlockUntil(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.timers) < n {
		f.changed.Wait()
	}
}

func (f *Fake) add(d time.Duration, c chan time.Time, fn func()) *fakeTimer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{clock: f, when: f.now.Add(d), c: c, fn: fn}
	f.timers = append(f.timers, t)
	sort.SliceStable(f.timers, func(i, j int) bool { return f.timers[i].when.Before(f.timers[j].when) })
	f.changed.Broadcast()
	return t
}

func (f *Fake) nextDue(end time.Time) *fakeTimer {
	if len(f.timers) == 0 || f.timers[0].when.After(end) {
		return nil
	}
	return f.timers[0]
}

// remove drops t from the pending list and reports whether it was there.
func (f *Fake) remove(t *fakeTimer) bool {
	for i, p := range f.timers {
		if p == t {
			f.timers = append(f.timers[:i], f.timers[i+1:]...)
			return true
		}
	}
	return false
}

type fakeTimer struct {
	clock *Fake
	when  time.Time
	c     chan time.Time
	fn    func()
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.clock.mu.Lock()
	defer t.clock.mu.Unlock()
	return t.clock.remove(t)
}

func (t *fakeTimer) fire() {
	if t.fn != nil {
		t.fn()
		return
	}
	select {
	case t.c <- t.when:
	default:
	}
}
