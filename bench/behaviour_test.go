package bench

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBehaviourRxhystrix runs the behaviour comparison's scenario against rxhystrix in
// both modes and checks what the README's behaviour table claims for it: the fallback
// answers every call; the breaker opens within a health interval (500 ms) of the failures
// by default, at the 20th request with evaluateOnFailure; it closes at the first trial
// after the 5 s sleep window; metrics count every call exactly, the burst's million too;
// nothing is left running. About 20 s.
func TestBehaviourRxhystrix(t *testing.T) {
	if testing.Short() {
		t.Skip("about 20 s")
	}
	sc := DefaultScenario()
	for _, lib := range BehaviourLibraries()[:2] {
		t.Run(lib.Name, func(t *testing.T) {
			o := RunScenario(lib, sc)
			assert.Zero(t, o.CallerErrors, "the fallback answers every call")
			require.True(t, o.Opened, "the breaker never opened")
			if lib.Name == EvaluateOnFailure {
				// 20 requests, every one failing; a call already past the gate on another
				// worker may still reach the dependency.
				assert.GreaterOrEqual(t, o.ReachedFailing, int64(20))
				assert.LessOrEqual(t, o.ReachedFailing, int64(20+sc.Workers-1), "open at the 20th failure")
			} else {
				// 20 requests take 40 ms at 500 calls/s; the next health snapshot comes within
				// 500 ms (and a busy machine's timer a little later).
				assert.Less(t, o.TimeToOpen, 650*time.Millisecond, "open within a health interval")
			}
			require.True(t, o.Closed, "the breaker did not close after the recovery")
			// The trial comes 5 s after the opening: 3 s after the recovery at 2 s.
			assert.InDelta(t, o.TimeToOpen+3*time.Second, o.TimeToClose, float64(100*time.Millisecond),
				"closed at the first trial after the sleep window")
			assert.Equal(t, o.Calls, o.ShortCircuited+o.ReachedFailing+o.ReachedHealthy)
			assert.Equal(t, o.Calls, o.Recorded, "metrics count every call")
			assert.Equal(t, int64(sc.Burst), o.BurstCalls)
			assert.Equal(t, o.BurstCalls, o.BurstRecorded, "metrics count every call of the burst")
			assert.Zero(t, o.GoroutinesLeft, "goroutines left after Close")
		})
	}
}

// TestRunScenarioShort runs a short scenario against cep21 (synchronous, no goroutines):
// it checks the harness's accounting, not the library.
func TestRunScenarioShort(t *testing.T) {
	sc := Scenario{Duration: 400 * time.Millisecond, FailFor: 200 * time.Millisecond, Workers: 2, Rate: 1000, Burst: 1000}
	o := RunScenario(Lib{Name: "cep21", New: NewCep21}, sc)

	assert.Equal(t, o.Calls, o.ShortCircuited+o.ReachedFailing+o.ReachedHealthy, "every call counted once")
	assert.LessOrEqual(t, o.Calls, int64(sc.Rate*4/10+sc.Workers), "never above the rate: Rate*Duration, plus each worker's first call")
	assert.Zero(t, o.ReachedHealthy, "open through the recovery: a 5 s sleep window cannot end in 400 ms")
	assert.Zero(t, o.CallerErrors)
	assert.True(t, o.Opened)
	assert.GreaterOrEqual(t, o.ReachedFailing, int64(20), "the breaker needs 20 calls before it opens")
	assert.Less(t, o.ReachedFailing, o.Calls)
	assert.Positive(t, o.ShortCircuited)
	assert.Less(t, o.TimeToOpen, sc.FailFor)
	assert.False(t, o.Closed, "a 5 s sleep window cannot end in 400 ms")
	assert.Equal(t, o.Calls, o.Recorded, "cep21's rolling stats are synchronous")
	assert.Equal(t, int64(sc.Burst), o.BurstCalls)
	assert.Equal(t, o.BurstCalls, o.BurstRecorded)
	assert.Equal(t, int64(-1), o.BurstDropped, "cep21 reports no drops")
	assert.Zero(t, o.GoroutinesLeft)

	var buf bytes.Buffer
	require.NoError(t, WriteBehaviourTable(&buf, sc, [][]Outcome{{o}}))
	assert.Contains(t, buf.String(), "| cep21 | ")
	assert.Contains(t, buf.String(), "still open at the end")
}

func TestExactness(t *testing.T) {
	assert.Equal(t, "10/10 exact", exactness(10, 10))
	assert.Equal(t, "7/10 (-3)", exactness(7, 10))
	assert.Equal(t, "n/a (no cumulative metrics)", exactness(-1, 10))
}

func TestBehaviourLibrariesHaveBothRxhystrixModes(t *testing.T) {
	var names []string
	for _, l := range BehaviourLibraries() {
		names = append(names, l.Name)
	}
	assert.Equal(t, []string{"rxhystrix", EvaluateOnFailure, "cep21", "failsafe", "afex", "gobreaker"}, names)
	target := BehaviourLibraries()[1].New("behaviour-evaluate", Defaults()).(*rxTarget)
	defer target.Close()
	assert.Equal(t, "true", target.setter.Properties["circuitBreaker.evaluateOnFailure"])
}

func TestBehaviourOrderPutsAfexLast(t *testing.T) {
	var names []string
	for _, l := range BehaviourOrder([]Lib{{Name: "afex"}, {Name: "cep21"}, {Name: "gobreaker"}}) {
		names = append(names, l.Name)
	}
	assert.Equal(t, []string{"cep21", "gobreaker", "afex"}, names)
}

func TestBehaviourTableOfSeveralRuns(t *testing.T) {
	run := func(open, closeAfter time.Duration, reached, burstRecorded int64) Outcome {
		return Outcome{Lib: "x", Calls: 4000, ReachedFailing: reached, ShortCircuited: 2500,
			Opened: true, TimeToOpen: open, Closed: closeAfter > 0, TimeToClose: closeAfter,
			Recorded: 4000, BurstCalls: 1000, BurstRecorded: burstRecorded, BurstDropped: -1, BurstTime: open}
	}
	runs := [][]Outcome{
		{run(40*time.Millisecond, 3040*time.Millisecond, 20, 1000)},
		{run(212*time.Millisecond, 0, 106, 990)},
		{run(100*time.Millisecond, 3100*time.Millisecond, 50, 1000)},
	}
	var buf bytes.Buffer
	require.NoError(t, WriteBehaviourTable(&buf, DefaultScenario(), runs))
	assert.Contains(t, buf.String(), "3 runs: median (lowest-highest)")
	assert.Contains(t, buf.String(), "| x | 4000 (4000-4000) | 50 (20-106) | 2500 (2500-2500) | 100ms (40ms-212ms) | "+
		"3.07s (3.04s-3.1s) in 2 of 3 runs | 0 | 4000/4000 exact | 990/1000 (-10) | 100ms (40ms-212ms) | 0 |\n")
}
