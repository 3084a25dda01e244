package bench

import (
	"errors"
	"fmt"
)

// Goal is an acceptance bound of the performance tables (issue 39): the median ratio of a
// case to a peer (rxhystrix/peer; to Execute for a front door) at most MaxRatio, and
// rxhystrix's allocations per call at most MaxAllocs (negative: no bound). bench-check
// fails when a measurement leaves one, on any machine.
type Goal struct {
	Case      string
	Peer      string // "" for an allocation bound alone
	MaxRatio  float64
	MaxAllocs float64
}

// Goals are the acceptance bounds: THREAD isolation at the price of cep21's success, one
// hot key from two cores at half cep21's and within 1.5x gobreaker's, a success within 1.3x
// gobreaker's, and the front doors within a few Kind.ExecutePooled calls.
var Goals = []Goal{
	{Case: "Success", Peer: "gobreaker", MaxRatio: 1.3, MaxAllocs: 0},
	{Case: "ThreadIsolated", Peer: "cep21", MaxRatio: 1.0, MaxAllocs: 2},
	{Case: "ParallelSuccess", Peer: "cep21", MaxRatio: 0.5, MaxAllocs: -1},
	{Case: "ParallelSuccess", Peer: "gobreaker", MaxRatio: 1.5, MaxAllocs: -1},
	{Case: "QueueGet", Peer: Execute, MaxRatio: 1.2, MaxAllocs: -1},
	{Case: "Observe", Peer: Execute, MaxRatio: 2, MaxAllocs: -1},
	{Case: "ToObservable", Peer: Execute, MaxRatio: 4, MaxAllocs: 5},
}

// CheckGoals returns every goal the measured rows leave (a case or peer not measured is
// not checked).
func CheckGoals(goals []Goal, measured []Row) error {
	byCase := map[string]Row{}
	for _, r := range measured {
		byCase[r.Case] = r
	}
	var errs []error
	for _, g := range goals {
		r, ok := byCase[g.Case]
		if !ok {
			continue
		}
		if s, ok := r.Ratios[g.Peer]; ok && s.Median > g.MaxRatio {
			errs = append(errs, fmt.Errorf("goal: %s vs %s: %.2f (%.2f-%.2f) measured, the goal is at most %.2f",
				g.Case, g.Peer, s.Median, s.Low, s.High, g.MaxRatio))
		}
		if g.MaxAllocs >= 0 && r.Allocs > g.MaxAllocs {
			errs = append(errs, fmt.Errorf("goal: %s: %.0f allocs/op measured, the goal is at most %.0f", g.Case, r.Allocs, g.MaxAllocs))
		}
	}
	return errors.Join(errs...)
}
