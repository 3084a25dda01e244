package breaker

import (
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trialRace is one round of raceTrial: how many goroutines were let through, how many
// lost the contested start of the trial (they saw it due, another started it first: a
// ticket but no pass), and the ticket of the winner.
type trialRace struct {
	passed, lost int64
	trial        Ticket
}

// raceTrial releases n goroutines at once on Attempt.
func raceTrial(b CircuitBreaker, n int) trialRace {
	var (
		start        = make(chan struct{})
		wg           sync.WaitGroup
		passed, lost atomic.Int64
		ticket       atomic.Uint32
	)
	for range n {
		wg.Go(func() {
			<-start
			b.AllowRequest()
			t, ok := b.Attempt()
			switch {
			case ok:
				passed.Add(1)
				ticket.Store(uint32(t))
			case t != 0:
				lost.Add(1)
			}
			b.IsOpen()
		})
	}
	close(start)
	wg.Wait()
	return trialRace{passed.Load(), lost.Load(), Ticket(ticket.Load())}
}

// raceRounds runs round until at least 50 rounds ran and the contested start of a trial
// was lost by someone in at least one of them (a race that never happened proves
// nothing), at most 20,000 rounds. Every round must have exactly one winner.
func raceRounds(t *testing.T, round func(i int) trialRace) {
	t.Helper()
	contested := 0
	i := 0
	for ; i < 20000 && (i < 50 || contested == 0); i++ {
		r := round(i)
		require.EqualValues(t, 1, r.passed, "round %d: exactly one trial", i)
		if r.lost > 0 {
			contested++
		}
	}
	require.Positive(t, contested, "in %d rounds no goroutine lost the start of a trial to another", i)
	t.Logf("%d rounds, %d of them contested", i, contested)
}

func TestRaceExactlyOneTrialWhenTheSleepWindowExpires(t *testing.T) {
	f := newFixture(t)
	f.trip()
	raceRounds(t, func(round int) trialRace {
		f.clk.Advance(5 * time.Second)
		r := raceTrial(f.b, 64)
		require.Equal(t, HalfOpen, f.b.State())
		switch round % 3 {
		case 0:
			f.b.Report(r.trial, Failure)
		case 1:
			f.b.Report(r.trial, Cancelled)
		case 2: // abandoned: the next round's Advance passes the trial deadline
		}
		return r
	})
}

func TestRaceExactlyOneTrialAfterRelease(t *testing.T) {
	f := newFixture(t)
	f.trip()
	trial := f.trial(t)
	raceRounds(t, func(int) trialRace {
		f.b.Report(trial, BadRequest)
		r := raceTrial(f.b, 64)
		trial = r.trial
		return r
	})
}

// everyKind are the transitions TestRaceEverythingAtOnce must see happen.
var everyKind = [][2]State{{Closed, Open}, {Open, HalfOpen}, {HalfOpen, Open}, {HalfOpen, Closed}}

// kindsOf counts the transitions of ts by (from, to).
func kindsOf(ts []Transition) map[[2]State]int {
	kinds := map[[2]State]int{}
	for _, tr := range ts {
		kinds[[2]State{tr.From, tr.To}]++
	}
	return kinds
}

// transitionsFrom returns the transitions recorded after the first from.
func (r *recorder) transitionsFrom(from int) []Transition {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Transition(nil), r.ts[from:]...)
}

// TestRaceEverythingAtOnce drives every method from many goroutines while the clock moves
// (for the race detector) until every kind of transition happened, and checks the
// transitions form one consistent chain. The bound is 200,000 steps of the clock (1 s
// each), not real time, and the clock steps only once the callers called since its last
// step: on a busy machine the stepping goroutine may run alone for a while, and steps
// nobody raced prove nothing (they used up the bound in 0.7 s with two copies running).
func TestRaceEverythingAtOnce(t *testing.T) {
	f := newFixture(t)
	var (
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	f.k.setBool("evaluateOnFailure", true)
	f.rec.setLive(outcomes{failure: 100})
	verdicts := []Outcome{Success, Failure, Cancelled, BadRequest}
	var calls atomic.Int64 // rounds of calls made by the callers
	for i := range 8 {
		wg.Go(func() {
			for ; ; calls.Add(1) {
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
		defer close(stop)
		kinds, seen := map[[2]State]int{}, 0
		for i, last := 0, int64(-1); i < 200_000; i++ {
			for c := calls.Load(); c == last; c = calls.Load() { // spins: see above
			}
			last = calls.Load()
			f.trip()
			f.clk.Advance(time.Second)
			if i%100 == 99 {
				ts := f.rec.transitionsFrom(seen)
				seen += len(ts)
				maps.Copy(kinds, kindsOf(ts))
				if len(kinds) == len(everyKind) {
					return
				}
			}
		}
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
	kinds := kindsOf(ts)
	for _, k := range everyKind {
		assert.Positive(t, kinds[k], "the race never took the breaker from %v to %v: %v", k[0], k[1], kinds)
	}
	t.Logf("%d transitions: %v", len(ts), kinds)
}
