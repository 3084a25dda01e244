package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckGoalsNamesEveryRatioAndAllocationOutOfItsGoal(t *testing.T) {
	goals := []Goal{
		{Case: "ThreadIsolated", Peer: "cep21", MaxRatio: 1.0, MaxAllocs: 2},
		{Case: "ParallelSuccess", Peer: "gobreaker", MaxRatio: 1.5, MaxAllocs: -1},
		{Case: "Absent", Peer: "cep21", MaxRatio: 1, MaxAllocs: 0},
	}
	within := []Row{
		{Case: "ThreadIsolated", Allocs: 2, Ratios: map[string]Spread{"cep21": {1.0, 0.9, 1.2}}},
		{Case: "ParallelSuccess", Allocs: 9, Ratios: map[string]Spread{"gobreaker": {1.4, 1.3, 1.9}}},
	}
	require.NoError(t, CheckGoals(goals, within), "the medians are within, allocations unbounded where -1")

	out := []Row{
		{Case: "ThreadIsolated", Allocs: 3, Ratios: map[string]Spread{"cep21": {1.79, 1.7, 1.9}}},
		{Case: "ParallelSuccess", Ratios: map[string]Spread{"gobreaker": {2.25, 2.0, 2.5}}},
	}
	err := CheckGoals(goals, out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "goal: ThreadIsolated vs cep21: 1.79 (1.70-1.90) measured, the goal is at most 1.00")
	assert.Contains(t, err.Error(), "goal: ThreadIsolated: 3 allocs/op measured, the goal is at most 2")
	assert.Contains(t, err.Error(), "goal: ParallelSuccess vs gobreaker: 2.25")
}

// Every goal names a case of the tables and, for a ratio, a peer that takes part in it.
func TestGoalsNameCasesAndPeers(t *testing.T) {
	for _, g := range Goals {
		c, ok := CaseNamed(g.Case)
		require.True(t, ok, g.Case)
		if g.Peer == Execute {
			assert.NotNil(t, c.Door, "%s: a ratio to Execute is a front door's", g.Case)
		} else {
			assert.Contains(t, Peers, g.Peer, g.Case)
		}
	}
}
