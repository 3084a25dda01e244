package bench

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBehaviourComparison runs the full comparison (about 2 minutes) when
// BENCH_BEHAVIOUR=1 and prints its table. Every library must open its breaker and answer
// every call; rxhystrix, in both modes, must also close again, count every call exactly
// and leave no goroutine behind, and with evaluateOnFailure let no more calls reach the
// failing dependency than the best peer.
func TestBehaviourComparison(t *testing.T) {
	if os.Getenv("BENCH_BEHAVIOUR") == "" {
		t.Skip("set BENCH_BEHAVIOUR=1 to run the behaviour comparison (about 2 minutes)")
	}
	sc := DefaultScenario()
	var outs []Outcome
	best := int64(math.MaxInt64)
	for _, lib := range BehaviourOrder(BehaviourLibraries()) {
		o := RunScenario(lib, sc)
		outs = append(outs, o)
		assert.True(t, o.Opened, "%s: the breaker never opened", lib.Name)
		assert.Zero(t, o.CallerErrors, "%s: the fallback must answer every call", lib.Name)
		if !strings.HasPrefix(lib.Name, "rxhystrix") {
			best = min(best, o.ReachedFailing)
			continue
		}
		assert.True(t, o.Closed, "%s: the breaker did not close after the recovery", lib.Name)
		assert.Equal(t, o.Calls, o.Recorded, "%s: metrics must count every call", lib.Name)
		assert.Equal(t, o.BurstCalls, o.BurstRecorded, "%s: metrics must count every call of the burst", lib.Name)
		assert.Zero(t, o.GoroutinesLeft, "%s: goroutines left after Close", lib.Name)
	}
	for _, o := range outs {
		if o.Lib == EvaluateOnFailure {
			assert.LessOrEqual(t, o.ReachedFailing, best, "evaluateOnFailure: calls before the breaker opens")
		}
	}
	var buf bytes.Buffer
	require.NoError(t, WriteBehaviourTable(&buf, sc, outs))
	_, _ = os.Stdout.Write(buf.Bytes())
}

// TestRunScenarioShort runs a short scenario against cep21 (synchronous, no goroutines):
// it checks the harness's accounting, not the library.
func TestRunScenarioShort(t *testing.T) {
	sc := Scenario{Duration: 400 * time.Millisecond, FailFor: 200 * time.Millisecond, Workers: 2, Rate: 1000, Burst: 1000}
	o := RunScenario(Lib{Name: "cep21", New: NewCep21}, sc)

	assert.InDelta(t, 400, o.Calls, 300, "about Rate*Duration calls")
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
	require.NoError(t, WriteBehaviourTable(&buf, sc, []Outcome{o}))
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
