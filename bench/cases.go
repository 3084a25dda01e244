package bench

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// Case is one row of the comparison: the call every library protects and how it is made.
// The benchmarks (Benchmark<Name>/<lib>) and the interleaved comparison (Compare) run the
// same cases.
type Case struct {
	// Name is the case's name, as in Benchmark<Name>.
	Name string
	// Settings configures every library's target.
	Settings Settings
	// Run is the protected call; Want is what every call must answer (the run's value or
	// the fallback's).
	Run  Run
	Want int
	// Tripped opens the breaker with failing traffic (Trip) before measuring.
	Tripped bool
	// Parallel calls from GOMAXPROCS goroutines at once on the one target.
	Parallel bool
	// Door is one of rxhystrix's front doors other than Kind.ExecutePooled (the Execute
	// lane of the tables); only targets with FrontDoors run the case.
	Door func(FrontDoors, context.Context, Run) (int, error)
}

// Cases returns the cases of the performance tables (README.md): the ctx-aware ones first (a run that
// watches its context, as real calls do, so every library arms its timeout), then the
// context-blind ones, goroutine isolation and rxhystrix's other front doors.
func Cases() []Case {
	never := Defaults()
	never.RequestVolumeThreshold = NeverTrip
	thread := Defaults()
	thread.Thread = true
	return []Case{
		{Name: "SuccessCtx", Settings: Defaults(), Run: SucceedWatching, Want: Answer},
		{Name: "FailureCtx", Settings: never, Run: FailWatching, Want: FallbackAnswer},
		{Name: "ParallelSuccessCtx", Settings: Defaults(), Run: SucceedWatching, Want: Answer, Parallel: true},
		{Name: "Success", Settings: Defaults(), Run: Succeed, Want: Answer},
		{Name: "Failure", Settings: never, Run: Fail, Want: FallbackAnswer},
		{Name: "ShortCircuit", Settings: Defaults(), Run: Fail, Want: FallbackAnswer, Tripped: true},
		{Name: "ParallelSuccess", Settings: Defaults(), Run: Succeed, Want: Answer, Parallel: true},
		{Name: "ThreadIsolated", Settings: thread, Run: Succeed, Want: Answer},
		{Name: "NewExecute", Settings: Defaults(), Run: Succeed, Want: Answer, Door: FrontDoors.NewExecute},
		{Name: "Observe", Settings: Defaults(), Run: Succeed, Want: Answer, Door: FrontDoors.Observe},
		{Name: "ToObservable", Settings: Defaults(), Run: Succeed, Want: Answer, Door: FrontDoors.ToObservable},
		{Name: "QueueGet", Settings: Defaults(), Run: Succeed, Want: Answer, Door: FrontDoors.QueueGet},
	}
}

// CaseNamed returns the case called name.
func CaseNamed(name string) (Case, bool) {
	for _, c := range Cases() {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// Call is one protected call of a case through one library.
type Call func(ctx context.Context) (int, error)

// Includes reports whether lib takes part in the case: front doors only where it has
// them. Every library takes part in goroutine isolation: one without it (Lib.Thread false)
// makes its ordinary call, the price a user of goroutine isolation is compared with.
func (c Case) Includes(lib Lib) bool {
	if c.Door != nil {
		return lib.Name == "rxhystrix"
	}
	return true
}

// opened numbers the targets Open makes, so that every one gets a key of its own
// (hystrix-go keeps the first configuration of a key for the whole process).
var opened atomic.Int64

// Open returns a fresh target of lib on a key of its own (tripped when the case says so)
// and the case's call through it. Close the target when done.
func (c Case) Open(lib Lib) (Target, Call, error) {
	key := fmt.Sprintf("bench-%s-%s-%d", strings.ToLower(c.Name), lib.Name, opened.Add(1))
	t := lib.New(key, c.Settings)
	if c.Tripped {
		if _, err := Trip(context.Background(), t, 10*time.Second); err != nil {
			t.Close()
			return nil, nil, err
		}
	}
	if c.Door == nil {
		return t, func(ctx context.Context) (int, error) { return t.Do(ctx, c.Run) }, nil
	}
	d, ok := t.(FrontDoors)
	if !ok {
		t.Close()
		return nil, nil, fmt.Errorf("bench: %s has no front doors", lib.Name)
	}
	return t, func(ctx context.Context) (int, error) { return c.Door(d, ctx, c.Run) }, nil
}
