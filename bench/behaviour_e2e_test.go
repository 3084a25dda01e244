//go:build e2e

package bench

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBehaviourComparison runs the whole behaviour comparison (about 1 minute, make
// e2e-behaviour) and prints its table: every library must open its breaker and answer
// every call, and rxhystrix with evaluateOnFailure must let no more calls reach the
// failing dependency than the best peer (the README's "opens at the 20th failure like the
// others"). TestBehaviourRxhystrix checks the rest of rxhystrix's claims in make test.
func TestBehaviourComparison(t *testing.T) {
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
		}
	}
	for _, o := range outs {
		if o.Lib == EvaluateOnFailure {
			assert.LessOrEqual(t, o.ReachedFailing, best, "evaluateOnFailure: calls before the breaker opens")
		}
	}
	var buf bytes.Buffer
	require.NoError(t, WriteBehaviourTable(&buf, sc, [][]Outcome{outs}))
	_, _ = os.Stdout.Write(buf.Bytes())
}
