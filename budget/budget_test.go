package budget

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func withdrawals(b Budget, now time.Duration, n int) int {
	got := 0
	for range n {
		if b.Withdraw(now) {
			got++
		}
	}
	return got
}

func TestRatioIsAShareOfTheOriginalsWithAMinimum(t *testing.T) {
	r := NewRatio(20, 1)
	assert.Equal(t, 10, withdrawals(r, 0, 100), "no traffic: the minimum, 1 a second over the 10 s window")
	for range 1000 {
		r.Original(time.Second)
	}
	assert.Equal(t, 190, withdrawals(r, time.Second, 1000), "20 % of 1,000 originals, 10 already spent")
	r.Original(2 * time.Second)
	assert.Equal(t, 0, withdrawals(r, 2*time.Second, 10), "one more original is not a fifth of one")
	for range 5 {
		r.Original(2 * time.Second)
	}
	assert.Equal(t, 1, withdrawals(r, 2*time.Second, 10))
}

func TestRatioForgetsWhatLeftTheWindow(t *testing.T) {
	r := NewRatio(50, 0)
	for range 100 {
		r.Original(0)
	}
	assert.Equal(t, 50, withdrawals(r, 0, 100))
	assert.Equal(t, 0, withdrawals(r, Window-time.Millisecond, 10), "still in the window")
	for range 10 {
		r.Original(Window)
	}
	assert.Equal(t, 5, withdrawals(r, Window, 100), "the first bucket left: its originals and its extras")
	assert.Equal(t, 0, withdrawals(r, 5*Window, 100), "a long silence empties every bucket")
}

// Many goroutines flat out, originals and withdrawals mixed: the extra attempts never
// exceed the share of the originals counted before them, plus the minimum.
func TestRatioIsExactUnderContention(t *testing.T) {
	r := NewRatio(20, 10)
	var originals, extras atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20_000 {
				now := time.Duration(i) * 100 * time.Microsecond // 2 s in all
				if (i+g)%3 == 0 {
					if r.Withdraw(now) {
						extras.Add(1)
					}
					continue
				}
				r.Original(now)
				originals.Add(1)
			}
		})
	}
	wg.Wait()
	allowed := max(originals.Load()*20/100, 10*10)
	assert.LessOrEqual(t, extras.Load(), allowed)
	assert.Greater(t, extras.Load(), allowed*9/10, "and the budget is used")
}

func TestTokensThrottleOnFailuresAsGRPCDoes(t *testing.T) {
	tk := NewTokens(10, 100) // maxTokens 10, tokenRatio 0.1
	assert.True(t, tk.Withdraw(0), "a full bucket")
	for range 5 {
		tk.Outcome(false)
	}
	assert.False(t, tk.Withdraw(0), "5 of 10 left: not more than half")
	tk.Outcome(true)
	assert.True(t, tk.Withdraw(0), "5.1 left")
	for range 100 {
		tk.Outcome(true)
	}
	assert.Equal(t, int64(10*milli), tk.left.Load(), "never beyond maxTokens")
	for range 100 {
		tk.Outcome(false)
	}
	assert.Zero(t, tk.left.Load(), "never below zero")
}
