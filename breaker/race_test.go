package breaker

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raceTrial releases n goroutines at once on AttemptExecution and returns how many
// were let through.
func raceTrial(b CircuitBreaker, n int) int64 {
	var (
		start  = make(chan struct{})
		wg     sync.WaitGroup
		passed atomic.Int64
	)
	for range n {
		wg.Go(func() {
			<-start
			b.AllowRequest()
			if b.AttemptExecution() {
				passed.Add(1)
			}
			b.IsOpen()
		})
	}
	close(start)
	wg.Wait()
	return passed.Load()
}

func TestRaceExactlyOneTrialWhenTheSleepWindowExpires(t *testing.T) {
	const goroutines = 64
	f := newFixture(t)
	f.trip()
	for round := range 50 {
		f.clk.Advance(5 * time.Second)
		require.EqualValues(t, 1, raceTrial(f.b, goroutines), "round %d", round)
		require.Equal(t, HalfOpen, f.b.State())
		switch round % 3 {
		case 0:
			f.b.MarkNonSuccess()
		case 1:
			f.b.MarkCancelled()
		case 2: // abandoned: the next round's Advance passes the trial deadline
		}
	}
}

func TestRaceExactlyOneTrialAfterRelease(t *testing.T) {
	f := newFixture(t)
	f.trip()
	f.clk.Advance(5 * time.Second)
	require.True(t, f.b.AttemptExecution())
	for round := range 50 {
		f.b.ReleaseTrial()
		require.EqualValues(t, 1, raceTrial(f.b, 64), "round %d", round)
	}
}

// TestRaceEverythingAtOnce drives every method from many goroutines while the clock
// moves, for the race detector, and checks the transitions form one consistent chain.
func TestRaceEverythingAtOnce(t *testing.T) {
	f := newFixture(t)
	var (
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	outcomes := []func(){f.b.MarkSuccess, f.b.MarkNonSuccess, f.b.MarkCancelled, f.b.ReleaseTrial}
	for i := range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if f.b.AttemptExecution() {
					outcomes[i%len(outcomes)]()
				}
				f.b.AllowRequest()
				f.b.IsOpen()
			}
		})
	}
	wg.Go(func() {
		for range 2000 {
			f.trip()
			f.clk.Advance(time.Second)
		}
		close(stop)
	})
	wg.Wait()

	ts := f.rec.transitions()
	require.NotEmpty(t, ts)
	prev := Closed
	for i, tr := range ts {
		assert.Equal(t, prev, tr.From, "transition %d: %+v", i, tr)
		assert.NotEqual(t, tr.From, tr.To)
		prev = tr.To
	}
	assert.Equal(t, prev, f.b.State())
}
