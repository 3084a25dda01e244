//go:build !race

package command

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// TestFrontDoorAllocations pins what each front door allocates per call on SEMAPHORE
// isolation (and Execute on ADAPTIVE: the same) (the race detector changes allocation counts, so this runs without it): the
// Command itself (Queue's future is one of its fields), plus the done channel for a run
// that watches its context, and Observe's pre-filled channel (two allocations; more in
// doors_allocs_test.go).
func TestFrontDoorAllocations(t *testing.T) {
	s := semaphoreSetter(NewRuntime())
	defer s.Runtime.Close()
	adaptive := Setter{Runtime: s.Runtime, CommandKey: "adaptive", Properties: config.Overrides{"execution.isolation.strategy": "ADAPTIVE"}}
	ctx := context.Background()
	watching := func(ctx context.Context) (int, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		default:
			return 1, nil
		}
	}
	for _, tc := range []struct {
		name string
		max  float64
		call func()
	}{
		{"Execute", 1, func() { _, _ = New(s, benchRun).WithFallback(benchFallback).Execute(ctx) }},
		{"Execute, ADAPTIVE", 1, func() { _, _ = New(adaptive, benchRun).WithFallback(benchFallback).Execute(ctx) }},
		{"Execute, run watching ctx", 2, func() { _, _ = New(s, watching).WithFallback(benchFallback).Execute(ctx) }},
		{"Queue+Get", 1, func() {
			f, err := New(s, benchRun).WithFallback(benchFallback).Queue(ctx)
			require.NoError(t, err)
			_, _ = f.Get(ctx)
		}},
		{"Observe drained", 3, func() {
			for range New(s, benchRun).WithFallback(benchFallback).Observe(ctx).Observe() {
			}
		}},
	} {
		assert.LessOrEqual(t, testing.AllocsPerRun(1000, tc.call), tc.max, tc.name)
	}
}

// countingNotifier counts what it is told.
type countingNotifier struct {
	hooks.NoopNotifier
	executions atomic.Int64
}

func (n *countingNotifier) MarkCommandExecution(context.Context, string, config.IsolationStrategy, time.Duration, []metrics.EventType) {
	n.executions.Add(1)
}

// An event notifier costs an execution no allocation: the events it is given are a list
// shared by the executions with the same events.
func TestANotifierAllocatesNothing(t *testing.T) {
	reg := hooks.NewRegistry()
	n := &countingNotifier{}
	reg.SetEventNotifier(n)
	rt := NewRuntime(WithHooks(reg))
	defer rt.Close()
	s := semaphoreSetter(rt)
	ctx := context.Background()
	assert.LessOrEqual(t, testing.AllocsPerRun(1000, func() {
		_, _ = New(s, benchRun).WithFallback(benchFallback).Execute(ctx)
	}), 1.0, "the Command only")
	assert.Positive(t, n.executions.Load())
}

// TestKindExecutePooledAllocations pins Kind.ExecutePooled at zero allocations on the
// paths it reuses its Commands on: a success (with a run that ignores its context, and one
// that asks for Done and Err), a failure the fallback recovers, a short circuit (the
// breaker tripped, or forced open) the fallback answers; under THREAD isolation too, where the Command is the
// pool's task and its thread and channel are reused with it.
func TestKindExecutePooledAllocations(t *testing.T) {
	clk := clock.NewFake(epoch)
	rt := NewRuntime(WithClock(clk))
	defer rt.Close()
	define := func(key string, kv ...string) *Kind[int] {
		props := config.Overrides{"execution.isolation.strategy": "SEMAPHORE"}
		for i := 0; i+1 < len(kv); i += 2 {
			props[kv[i]] = kv[i+1]
		}
		k, err := Define[int](Setter{Runtime: rt, CommandKey: key, Properties: props})
		require.NoError(t, err)
		return k.WithFallback(benchFallback)
	}
	ctx := context.Background()
	watching := func(ctx context.Context) (int, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		default:
			return 1, ctx.Err()
		}
	}
	errRun := errors.New("run failed")
	failRun := func(context.Context) (int, error) { return 0, errRun }

	tripped := define("tripped", "circuitBreaker.requestVolumeThreshold", "1",
		"circuitBreaker.sleepWindowInMilliseconds", "3600000", "metrics.healthSnapshot.intervalInMilliseconds", "100")
	_, _ = tripped.ExecutePooled(ctx, failRun)
	rt.Metrics().Flush()
	clk.Advance(200 * time.Millisecond)
	rt.Metrics().Flush()
	require.True(t, rt.lookup("tripped").breaker.IsOpen(), "the breaker tripped")

	for _, tc := range []struct {
		name string
		k    *Kind[int]
		run  func(context.Context) (int, error)
		want int
	}{
		{"success", define("success"), benchRun, 1},
		{"success, run watching ctx", define("watching"), watching, 1},
		{"failure with fallback", define("failure", "circuitBreaker.enabled", "false"), failRun, 2},
		{"short circuit with fallback", tripped, benchRun, 2},
		{"forced short circuit with fallback", define("forced", "circuitBreaker.forceOpen", "true"), benchRun, 2},
		{"THREAD success", define("thread", "execution.isolation.strategy", "THREAD"), benchRun, 1},
		{"THREAD success, run watching ctx", define("thread-watching", "execution.isolation.strategy", "THREAD"), watching, 1},
		{"THREAD failure with fallback", define("thread-failure", "execution.isolation.strategy", "THREAD",
			"circuitBreaker.enabled", "false"), failRun, 2},
	} {
		for range 100 { // the pool's workers start (a goroutine each) while no idle one is there
			_, _ = tc.k.ExecutePooled(ctx, tc.run)
		}
		allocs := testing.AllocsPerRun(1000, func() {
			if v, err := tc.k.ExecutePooled(ctx, tc.run); err != nil || v != tc.want {
				t.Fatal(tc.name, v, err)
			}
		})
		assert.Zero(t, allocs, tc.name)
	}
}
