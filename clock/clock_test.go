package clock

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var epoch = time.Unix(1000, 0)

func TestFakeFiresTimersInDeadlineOrder(t *testing.T) {
	clk := NewFake(epoch)
	var order []int
	clk.AfterFunc(3*time.Second, func() { order = append(order, 3) })
	clk.AfterFunc(time.Second, func() { order = append(order, 1) })
	late := clk.NewTimer(2 * time.Second)

	clk.Advance(2500 * time.Millisecond)
	assert.Equal(t, []int{1}, order)
	select {
	case at := <-late.C():
		assert.Equal(t, epoch.Add(2*time.Second), at)
	default:
		t.Fatal("timer due at 2s did not fire")
	}
	assert.Equal(t, epoch.Add(2500*time.Millisecond), clk.Now())
	assert.Equal(t, 2500*time.Millisecond, clk.Since(epoch))
	assert.Equal(t, 1, clk.Pending())

	clk.Advance(time.Second)
	assert.Equal(t, []int{1, 3}, order)
	assert.Zero(t, clk.Pending())
}

func TestFakeStopAndRearmFromCallback(t *testing.T) {
	clk := NewFake(epoch)
	stopped := clk.NewTimer(time.Second)
	assert.True(t, stopped.Stop())
	assert.False(t, stopped.Stop())

	var ticks int
	var tick func()
	tick = func() {
		ticks++
		clk.AfterFunc(time.Second, tick)
	}
	clk.AfterFunc(time.Second, tick)
	clk.Advance(5 * time.Second)
	assert.Equal(t, 5, ticks, "a timer re-armed by its callback fires within the same Advance")
	assert.Empty(t, stopped.C())
}

func TestFakeBlockUntil(t *testing.T) {
	clk := NewFake(epoch)
	var fired atomic.Bool
	go clk.AfterFunc(time.Millisecond, func() { fired.Store(true) })
	clk.BlockUntil(1)
	clk.Advance(time.Millisecond)
	require.True(t, fired.Load())
}

// TestSystemClock brackets every reading of the system clock between two readings of
// package time, and checks that its timers wait at least their duration.
func TestSystemClock(t *testing.T) {
	clk := System()
	before := time.Now()
	now := clk.Now()
	after := time.Now()
	assert.False(t, now.Before(before), "Now is not earlier than a reading taken before it")
	assert.False(t, now.After(after), "Now is not later than a reading taken after it")

	timer := clk.NewTimer(2 * time.Millisecond)
	fired := <-timer.C()
	assert.GreaterOrEqual(t, fired.Sub(before), 2*time.Millisecond, "the timer waited its duration")
	low := time.Since(before)
	since := clk.Since(before)
	high := time.Since(before)
	assert.GreaterOrEqual(t, since, low)
	assert.LessOrEqual(t, since, high)
	assert.GreaterOrEqual(t, since, 2*time.Millisecond)

	start := time.Now()
	done := make(chan time.Duration)
	clk.AfterFunc(2*time.Millisecond, func() { done <- time.Since(start) })
	assert.GreaterOrEqual(t, <-done, 2*time.Millisecond, "AfterFunc waited its duration")
	assert.True(t, clk.NewTimer(time.Hour).Stop())
}

// Run moves a fake clock on its own until stopped, firing its timers; after stop the
// clock stands still.
func TestFakeRun(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	fired := make(chan struct{})
	f.AfterFunc(time.Hour, func() { close(fired) })
	stop := f.Run(time.Minute, 0)
	<-fired
	stop()
	stop() // again: nothing
	at := f.Now()
	time.Sleep(time.Millisecond)
	if !f.Now().Equal(at) {
		t.Fatalf("the clock moved after stop: %v, then %v", at, f.Now())
	}
}
