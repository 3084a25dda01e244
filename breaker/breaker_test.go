package breaker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{Closed: "CLOSED", Open: "OPEN", HalfOpen: "HALF_OPEN", State(7): "State(7)"} {
		assert.Equal(t, want, s.String())
	}
}

func TestTripsAtThresholds(t *testing.T) {
	for _, tc := range []struct {
		name            string
		volume, percent int
		o               outcomes
		open            bool
	}{
		{"exactly at volume and percentage", 20, 50, outcomes{success: 10, failure: 10}, true},
		{"below volume", 20, 50, outcomes{failure: 19}, false},
		{"below percentage", 20, 50, outcomes{success: 11, failure: 9}, false},
		{"percentage truncates to 49", 20, 50, outcomes{success: 51, failure: 49}, false},
		{"timeouts trip", 20, 50, outcomes{timeout: 20}, true},
		{"thread-pool rejections trip", 20, 50, outcomes{success: 5, poolRejected: 15}, true},
		{"semaphore rejections trip", 20, 50, outcomes{success: 5, semRejected: 15}, true},
		{"short circuits add no volume", 20, 50, outcomes{failure: 19, shortCircuited: 500}, false},
		{"short circuits do not dilute", 20, 50, outcomes{success: 10, failure: 10, shortCircuited: 500}, true},
		{"bad requests are not errors", 20, 50, outcomes{success: 20, badRequest: 80}, false},
		{"bad requests add no volume", 20, 50, outcomes{failure: 10, badRequest: 80}, false},
		{"no errors never trips, even at 0%", 0, 0, outcomes{success: 100}, false},
		{"empty window never trips, even at 0/0", 0, 0, outcomes{}, false},
		{"threshold 100 needs all errors", 1, 100, outcomes{failure: 1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.k.volume(tc.volume)
			f.k.percent(tc.percent)
			f.feed(tc.o)
			assert.Equal(t, tc.open, f.b.IsOpen())
			if !tc.open {
				assert.Equal(t, Closed, f.b.State())
				assert.Empty(t, f.rec.transitions())
				assert.True(t, f.attempt())
				return
			}
			assert.Equal(t, Open, f.b.State())
			assert.False(t, f.b.AllowRequest())
			assert.False(t, f.attempt())
			require.Len(t, f.rec.transitions(), 1)
		})
	}
}

func TestOpenReasonAndStamp(t *testing.T) {
	f := newFixture(t)
	f.clk.Advance(time.Minute)
	f.feed(outcomes{success: 10, failure: 15})
	assert.Equal(t, []Transition{{Key: "cmd", From: Closed, To: Open,
		Reason: "error percentage 60% >= 50% over 25 requests", At: epoch.Add(time.Minute)}}, f.rec.transitions())

	f.clk.Advance(time.Second)
	f.feed(outcomes{failure: 100})
	assert.Len(t, f.rec.transitions(), 1, "snapshots are ignored while open: no restamp")
	f.clk.Advance(4 * time.Second)
	assert.True(t, f.b.AllowRequest(), "sleep window counts from the first trip")
}

func TestSleepWindowAndSingleTrial(t *testing.T) {
	f := newFixture(t)
	f.trip()

	f.clk.Advance(5*time.Second - time.Millisecond)
	assert.False(t, f.b.AllowRequest())
	assert.False(t, f.attempt())
	assert.Equal(t, Open, f.b.State())

	f.clk.Advance(time.Millisecond)
	assert.True(t, f.b.AllowRequest())
	assert.True(t, f.b.AllowRequest(), "AllowRequest has no side effects")
	assert.Equal(t, Open, f.b.State())

	assert.True(t, f.attempt(), "first caller after the window is the trial")
	assert.Equal(t, HalfOpen, f.b.State())
	assert.True(t, f.b.IsOpen(), "HALF_OPEN counts as open")
	assert.False(t, f.attempt(), "only one trial")
	assert.False(t, f.b.AllowRequest())

	ts := f.rec.transitions()
	require.Len(t, ts, 2)
	assert.Equal(t, Transition{Key: "cmd", From: Open, To: HalfOpen,
		Reason: "sleep window elapsed: trial request", At: epoch.Add(5 * time.Second)}, ts[1])
}

func TestDynamicSleepWindow(t *testing.T) {
	f := newFixture(t)
	f.trip()
	f.clk.Advance(2 * time.Second)
	assert.False(t, f.attempt())
	f.k.sleep(2 * time.Second)
	assert.True(t, f.attempt(), "sleep window is read on every call")
}

func TestTrialSuccessClosesAndResetsCounts(t *testing.T) {
	f := newFixture(t)
	f.trip()
	trial := f.trial(t)

	f.b.Report(trial, Success)
	assert.Equal(t, Closed, f.b.State())
	assert.False(t, f.b.IsOpen())
	assert.Equal(t, 1, f.rec.resetCount(), "health counts reset on close")
	assert.True(t, f.attempt())
	ts := f.rec.transitions()
	require.Len(t, ts, 3)
	assert.Equal(t, Transition{Key: "cmd", From: HalfOpen, To: Closed, Reason: "trial succeeded", At: epoch.Add(5 * time.Second)}, ts[2])

	f.trip()
	assert.Equal(t, Open, f.b.State(), "a closed breaker trips again on fresh counts")
}

func TestTrialFailureAndCancellationReopen(t *testing.T) {
	for _, tc := range []struct {
		reason  string
		outcome Outcome
	}{
		{"trial failed", Failure},
		{"trial cancelled", Cancelled},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			f := newFixture(t)
			f.trip()
			trial := f.trial(t)
			f.clk.Advance(time.Second)

			f.b.Report(trial, tc.outcome)
			assert.Equal(t, Open, f.b.State())
			assert.Zero(t, f.rec.resetCount())
			ts := f.rec.transitions()
			require.Len(t, ts, 3)
			assert.Equal(t, Transition{Key: "cmd", From: HalfOpen, To: Open, Reason: tc.reason, At: epoch.Add(6 * time.Second)}, ts[2])

			f.clk.Advance(5*time.Second - time.Millisecond)
			assert.False(t, f.attempt(), "fresh sleep window from the verdict")
			f.clk.Advance(time.Millisecond)
			assert.True(t, f.attempt())
			assert.Equal(t, HalfOpen, f.b.State())
		})
	}
}

func TestBadRequestReleasesTheTrial(t *testing.T) {
	f := newFixture(t)
	f.trip()
	trial := f.trial(t)
	f.clk.Advance(time.Second)

	f.b.Report(trial, BadRequest)
	assert.Equal(t, Open, f.b.State())
	assert.True(t, f.b.IsOpen())
	assert.True(t, f.b.AllowRequest())
	next, ok := f.b.Attempt()
	assert.True(t, ok, "no new sleep window")
	assert.False(t, f.attempt(), "still a single trial")

	ts := f.rec.transitions()
	require.Len(t, ts, 4)
	assert.Equal(t, "trial released without a verdict (bad request)", ts[2].Reason)
	assert.Equal(t, HalfOpen, ts[2].From)
	assert.Equal(t, Open, ts[2].To)
	assert.Equal(t, "previous trial ended without a verdict: trial request", ts[3].Reason)

	f.b.Report(trial, Success)
	assert.Equal(t, HalfOpen, f.b.State(), "the released trial's ticket decides nothing any more")
	f.b.Report(next, Success)
	assert.Equal(t, Closed, f.b.State())
}

func TestAbandonedTrialAllowsANewTrialAfterOneSleepWindow(t *testing.T) {
	f := newFixture(t)
	f.trip()
	abandoned := f.trial(t) // this trial does not report back in time

	f.clk.Advance(5*time.Second - time.Millisecond)
	assert.False(t, f.b.AllowRequest())
	assert.False(t, f.attempt())
	f.clk.Advance(time.Millisecond)
	assert.True(t, f.b.AllowRequest())
	assert.True(t, f.attempt(), "trial deadline passed: a new trial")
	assert.False(t, f.attempt())
	assert.Equal(t, HalfOpen, f.b.State())

	ts := f.rec.transitions()
	require.Len(t, ts, 4)
	assert.Equal(t, Transition{Key: "cmd", From: HalfOpen, To: Open,
		Reason: "trial abandoned: no verdict within the sleep window (5s)", At: epoch.Add(10 * time.Second)}, ts[2])
	assert.Equal(t, Transition{Key: "cmd", From: Open, To: HalfOpen,
		Reason: "previous trial ended without a verdict: trial request", At: epoch.Add(10 * time.Second)}, ts[3])

	f.b.Report(abandoned, Success)
	assert.Equal(t, HalfOpen, f.b.State(), "a late verdict of the abandoned trial decides nothing")
	assert.Zero(t, f.rec.resetCount())
}

// TestOnlyTheTrialsTicketDecides: a request admitted while CLOSED that reports while the
// breaker is HALF_OPEN neither closes nor reopens it (Hystrix would close on its success).
func TestOnlyTheTrialsTicketDecides(t *testing.T) {
	for _, o := range []Outcome{Success, Failure, BadRequest, Cancelled} {
		f := newFixture(t)
		slow, ok := f.b.Attempt()
		require.True(t, ok)
		f.trip()
		trial := f.trial(t)
		f.b.Report(slow, o)
		assert.Equal(t, HalfOpen, f.b.State(), "outcome %d of a request admitted while CLOSED", o)
		assert.Len(t, f.rec.transitions(), 2)
		f.b.Report(trial, Success)
		assert.Equal(t, Closed, f.b.State())
	}
}

func TestOutcomesOutsideATrialChangeNothing(t *testing.T) {
	for _, o := range []Outcome{Success, Failure, BadRequest, Cancelled} {
		f := newFixture(t)
		closed, ok := f.b.Attempt()
		require.True(t, ok)
		f.b.Report(closed, o)
		assert.Equal(t, Closed, f.b.State())

		f.trip()
		f.clk.Advance(4 * time.Second)
		f.b.Report(closed, o)
		assert.Equal(t, Open, f.b.State())
		assert.False(t, f.attempt(), "window not restarted or released")
		f.clk.Advance(time.Second)
		assert.True(t, f.attempt(), "window not extended")
		assert.Len(t, f.rec.transitions(), 2)
		assert.Zero(t, f.rec.resetCount())
		assert.Zero(t, f.rec.liveReads(), "no live evaluation unless asked for")
	}
}

// TestEvaluateOnFailureOpensAtOnce: with circuitBreaker.evaluateOnFailure a failure in
// CLOSED re-evaluates the thresholds from the live counts plus the failure reported (not
// in the metrics yet), on the caller.
func TestEvaluateOnFailureOpensAtOnce(t *testing.T) {
	f := newFixture(t)
	f.k.setBool("evaluateOnFailure", true)
	tk, ok := f.b.Attempt()
	require.True(t, ok)

	f.rec.setLive(outcomes{failure: 18})
	f.b.Report(tk, Failure)
	assert.Equal(t, Closed, f.b.State(), "below the volume threshold: 18 + the one reported")
	f.b.Report(tk, Success)
	f.b.Report(tk, BadRequest)
	assert.Equal(t, 1, f.rec.liveReads(), "only failures evaluate")

	f.rec.setLive(outcomes{failure: 19})
	f.b.Report(tk, Failure)
	assert.Equal(t, Open, f.b.State(), "19 + the one reported reach the volume")
	ts := f.rec.transitions()
	require.Len(t, ts, 1)
	assert.Equal(t, "error percentage 100% >= 50% over 20 requests, counted at a failure", ts[0].Reason)

	f.b.Reset()
	f.b.Report(tk, Failure)
	assert.Equal(t, Closed, f.b.State(), "a ticket of an earlier CLOSED generation evaluates nothing")
	assert.Equal(t, 2, f.rec.liveReads())
}

func TestForceFlags(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		forceOpen, forceClosed bool
		tripped                bool
		allow, open            bool
	}{
		{"force open on a closed breaker", true, false, false, false, true},
		{"force closed on an open breaker", false, true, true, true, false},
		{"force open beats force closed (closed)", true, true, false, false, true},
		{"force open beats force closed (open)", true, true, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.tripped {
				f.trip()
			}
			f.k.forceOpen(tc.forceOpen)
			f.k.forceClosed(tc.forceClosed)
			f.clk.Advance(time.Hour)
			for range 3 {
				assert.Equal(t, tc.allow, f.b.AllowRequest())
				assert.Equal(t, tc.allow, f.attempt())
				assert.Equal(t, tc.open, f.b.IsOpen())
			}
			want := Closed
			if tc.tripped {
				want = Open
			}
			assert.Equal(t, want, f.b.State(), "forcing changes no state and starts no trial")

			f.k.forceOpen(false)
			f.k.forceClosed(false)
			assert.Equal(t, tc.tripped, f.b.IsOpen(), "flags are read on every call")
		})
	}
}

func TestDisabledNeverOpens(t *testing.T) {
	f := newFixture(t)
	f.k.enabled(false)
	f.k.forceOpen(true)
	f.feed(outcomes{failure: 1000})
	assert.Equal(t, Closed, f.b.State())
	assert.False(t, f.b.IsOpen())
	assert.True(t, f.b.AllowRequest())
	assert.True(t, f.attempt())
	assert.Empty(t, f.rec.transitions())

	f.k.enabled(true)
	f.k.forceOpen(false)
	f.trip()
	f.clk.Advance(5 * time.Second)
	f.k.enabled(false)
	for range 3 {
		assert.True(t, f.attempt())
	}
	assert.False(t, f.b.IsOpen())
	tk, _ := f.b.Attempt()
	f.b.Report(tk, Failure)
	f.b.Report(tk, Success)
	assert.Equal(t, Open, f.b.State(), "a disabled breaker starts no trial and takes no verdicts")

	f.k.enabled(true)
	assert.True(t, f.b.IsOpen(), "enabled is read on every call")
}

func TestReset(t *testing.T) {
	for _, tc := range []struct {
		name string
		prep func(*fixture)
	}{
		{"from open", func(f *fixture) { f.trip() }},
		{"from half-open", func(f *fixture) {
			f.trip()
			f.trial(t)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.prep(f)
			before := len(f.rec.transitions())
			f.b.Reset()
			assert.Equal(t, Closed, f.b.State())
			assert.True(t, f.attempt())
			assert.Equal(t, 1, f.rec.resetCount())
			ts := f.rec.transitions()
			require.Len(t, ts, before+1)
			assert.Equal(t, "reset by operator", ts[before].Reason)
			assert.Equal(t, Closed, ts[before].To)
		})
	}
	f := newFixture(t)
	f.b.Reset()
	assert.Empty(t, f.rec.transitions(), "reset of a closed breaker is a no-op")
	assert.Zero(t, f.rec.resetCount())
}

func TestNoOp(t *testing.T) {
	b := noOp()
	for _, o := range []Outcome{Failure, Cancelled, BadRequest, Success} {
		tk, ok := b.Attempt()
		assert.True(t, ok)
		b.Report(tk, o)
		b.Reset()
		assert.True(t, b.AllowRequest())
		assert.False(t, b.IsOpen())
		assert.Equal(t, Closed, b.State())
	}
}
