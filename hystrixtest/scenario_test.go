package hystrixtest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixtest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// The behaviour comparison's scenario (bench.DefaultScenario, the behaviour table of
// bench/README.md) without its burst: a dependency fails for 2 s, then recovers; 4
// goroutines call it at 500 calls/s in all for 8 s; breaker of 20 requests, 50 %, 5 s.
const (
	storyLength = 8 * time.Second
	failFor     = 2 * time.Second
	workers     = 4
	rate        = 500
	period      = workers * time.Second / rate // between two calls of one worker
	spacing     = period / workers             // between two calls of the scenario
)

// outcome is what the behaviour table shows of one run, from the story's start.
type outcome struct {
	calls, reachedFailing, shortCircuited, recorded int64
	timeToOpen, timeToCloseAfterRecovery            time.Duration
}

// story runs the scenario in virtual time on a fresh kit, starting phase after a whole
// second (the health snapshots are aligned to the clock, every 500 ms), and returns its
// outcome and the kit.
func story(t *testing.T, phase time.Duration, evaluateOnFailure bool) (outcome, *hystrixtest.Kit) {
	k := newKit(t)
	k.Advance(phase)
	begin := k.Elapsed()
	kind, err := command.Define[int](command.Setter{Runtime: k.Runtime(), CommandKey: "Behaviour", Properties: config.Set(
		config.ExecutionIsolationStrategy.Of(config.Semaphore),
		config.ExecutionTimeout.Of(time.Second),
		config.ExecutionMaxConcurrentRequests.Of(10_000),
		config.FallbackMaxConcurrentRequests.Of(10_000),
		config.CircuitBreakerEvaluateOnFailure.Of(evaluateOnFailure),
	)})
	if err != nil {
		t.Fatal(err)
	}
	dep := hystrixtest.NewDependency(k, 42, hystrixtest.Until(failFor, hystrixtest.Fail(errDown), hystrixtest.OK()))
	for w := range workers {
		k.Go(func(ctx context.Context) {
			for at := time.Duration(w) * spacing; at < storyLength; at += period {
				if k.Sleep(ctx, at-(k.Elapsed()-begin)) != nil {
					return
				}
				_, _ = kind.New(dep.Run).WithFallback(func(context.Context, error) (int, error) { return -1, nil }).Execute(ctx)
			}
		})
	}
	k.AdvanceUntilQuiet()

	var o outcome
	firstShort, lastShort := time.Duration(-1), time.Duration(-1)
	for _, x := range k.Recorder().Executions("Behaviour") {
		o.calls++
		switch at := x.Start - begin; {
		case slices.Contains(x.Events, metrics.ShortCircuited):
			o.shortCircuited++
			if firstShort < 0 {
				firstShort = at
			}
			lastShort = at
		case slices.Contains(x.Events, metrics.Failure):
			o.reachedFailing++
		}
	}
	o.timeToOpen, o.timeToCloseAfterRecovery = firstShort, lastShort-failFor
	m := k.Runtime().Metrics().Command("Behaviour")
	for _, e := range []metrics.EventType{metrics.Success, metrics.Failure, metrics.ShortCircuited} {
		o.recorded += m.CumulativeCount(e)
	}
	return o, k
}

// TestBehaviourScenario replays the median run of the behaviour table in virtual time:
// the first health snapshot 376 ms after the first failure. It gives the table's figures
// of that run (4000 calls, 188 reached the failing dependency, 2500 short-circuited, open
// at 376 ms, closed 3.375 s after the recovery; with evaluateOnFailure 20, 2499, 40 ms and
// 3.036 s): the real-time run closed 1 ms later than the virtual one, its last
// short-circuit a moment after its tick. And it runs in a fraction of the 8 s it tells.
func TestBehaviourScenario(t *testing.T) {
	for _, c := range []struct {
		evaluateOnFailure bool
		want              outcome
		runs, transitions []string
	}{{
		want: outcome{calls: 4000, reachedFailing: 188, shortCircuited: 2500, recorded: 4000,
			timeToOpen: 376 * time.Millisecond, timeToCloseAfterRecovery: 3374 * time.Millisecond},
		runs: []string{"[FAILURE, FALLBACK_SUCCESS] x188", "[SHORT_CIRCUITED, FALLBACK_SUCCESS] x2500", "[SUCCESS] x1312"},
		// The story starts at 124 ms: open at the health snapshot of 500 ms, the trial 5 s on.
		transitions: []string{"CLOSED -> OPEN at 500ms", "OPEN -> HALF_OPEN at 5.5s", "HALF_OPEN -> CLOSED at 5.5s"},
	}, {
		evaluateOnFailure: true,
		want: outcome{calls: 4000, reachedFailing: 20, shortCircuited: 2499, recorded: 4000,
			timeToOpen: 40 * time.Millisecond, timeToCloseAfterRecovery: 3036 * time.Millisecond},
		runs: []string{"[FAILURE, FALLBACK_SUCCESS] x20", "[SHORT_CIRCUITED, FALLBACK_SUCCESS] x2499", "[SUCCESS] x1481"},
		// Open at the 20th failure, 38 ms into the story.
		transitions: []string{"CLOSED -> OPEN at 162ms", "OPEN -> HALF_OPEN at 5.162s", "HALF_OPEN -> CLOSED at 5.162s"},
	}} {
		t.Run(fmt.Sprintf("evaluateOnFailure=%v", c.evaluateOnFailure), func(t *testing.T) {
			began := time.Now()
			got, k := story(t, 124*time.Millisecond, c.evaluateOnFailure)
			wall := time.Since(began)
			assert.Equal(t, c.want, got)
			k.Recorder().ExpectRuns(t, "Behaviour", c.runs...)
			k.Recorder().ExpectTransitions(t, "Behaviour", c.transitions...)
			t.Logf("8 s of the story in %v of wall time", wall)
			assert.Less(t, wall, storyLength/2, "virtual time: far quicker than the story, however busy the machine")
		})
	}
}

// TestBehaviourScenarioAtEveryPhase checks the rule the behaviour table's spread of
// "time to open" comes from, at phases that put the first health snapshot 500, 250, 40
// and 30 ms after the first failure: the breaker opens at the first snapshot (every
// 500 ms) that sees at least 20 requests, and closes at the first call 5 s later.
func TestBehaviourScenarioAtEveryPhase(t *testing.T) {
	for _, phase := range []time.Duration{0, 250 * time.Millisecond, 460 * time.Millisecond, 470 * time.Millisecond} {
		open := 500*time.Millisecond - phase // the first snapshot
		if open < 20*spacing {               // fewer than 20 calls before it
			open += 500 * time.Millisecond
		}
		got, _ := story(t, phase, false)
		want := outcome{calls: 4000, reachedFailing: int64(open / spacing), shortCircuited: 2500, recorded: 4000,
			timeToOpen: open, timeToCloseAfterRecovery: open + 5*time.Second - spacing - failFor}
		assert.Equal(t, want, got, "the story starting %v after a whole second", phase)
	}
}
