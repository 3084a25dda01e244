package breaker

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// raceTrial releases n goroutines at once on Attempt and returns how many were let
// through, and the ticket of the last of them.
func raceTrial(b CircuitBreaker, n int) (int64, Ticket) {
	var (
		start  = make(chan struct{})
		wg     sync.WaitGroup
		passed atomic.Int64
		ticket atomic.Uint32
	)
	for range n {
		wg.Go(func() {
			<-start
			b.AllowRequest()
			if t, ok := b.Attempt(); ok {
				passed.Add(1)
				ticket.Store(uint32(t))
			}
			b.IsOpen()
		})
	}
	close(start)
	wg.Wait()
	return passed.Load(), Ticket(ticket.Load())
}

func TestRaceExactlyOneTrialWhenTheSleepWindowExpires(t *testing.T) {
	const goroutines = 64
	f := newFixture(t)
	f.trip()
	for round := range 50 {
		f.clk.Advance(5 * time.Second)
		passed, trial := raceTrial(f.b, goroutines)
		require.EqualValues(t, 1, passed, "round %d", round)
		require.Equal(t, HalfOpen, f.b.State())
		switch round % 3 {
		case 0:
			f.b.Report(trial, Failure)
		case 1:
			f.b.Report(trial, Cancelled)
		case 2: // abandoned: the next round's Advance passes the trial deadline
		}
	}
}

func TestRaceExactlyOneTrialAfterRelease(t *testing.T) {
	f := newFixture(t)
	f.trip()
	trial := f.trial(t)
	for round := range 50 {
		f.b.Report(trial, BadRequest)
		var passed int64
		passed, trial = raceTrial(f.b, 64)
		require.EqualValues(t, 1, passed, "round %d", round)
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
	f.k.setBool("evaluateOnFailure", true)
	f.rec.setLive(outcomes{failure: 100})
	verdicts := []Outcome{Success, Failure, Cancelled, BadRequest}
	for i := range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if tk, ok := f.b.Attempt(); ok {
					f.b.Report(tk, verdicts[i%len(verdicts)])
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
