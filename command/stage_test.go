package command

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/metrics"
)

// withStage puts s into rt's layout just inside the stage of after's type, for the chains
// of keys first used after it.
func withStage(t *testing.T, rt *Runtime, after stage, s stage) {
	t.Helper()
	i := slices.IndexFunc(rt.layout, func(l stage) bool { return reflect.TypeOf(l) == reflect.TypeOf(after) })
	require.GreaterOrEqual(t, i, 0, "no %T in the layout", after)
	rt.layout = slices.Insert(slices.Clone(rt.layout), i+1, s)
}

// retrying is a test stage that runs the rest of the chain again, with a fresh attempt,
// while the attempt failed or timed out, up to attempts in all: the shape a retry or a
// hedge takes (DESIGN.md, "Writing a stage").
type retrying struct{ attempts int }

func (r retrying) run(x *execution, a *attempt, next next) verdict {
	v := next.run(x, a)
	for n := 1; n < r.attempts && (v.kind == failed || v.kind == timedOut); n++ {
		x.retire(a)
		a = x.newAttempt()
		v = next.run(x, a)
	}
	return v
}

func TestEveryKindHasItsRow(t *testing.T) {
	for k := range numKinds {
		assert.NotEmpty(t, k.String(), "kind %d", k)
	}
}

// One execution, several attempts: each attempt has its own run context, events and
// latency, each reaches metrics and the breaker on its own, and the command's outcome is
// decided once (one onStart, one onSuccess, the last attempt's value).
func TestAStageCanRunTheRestOfTheChainAgain(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			withStage(t, e.rt, fallback{}, retrying{attempts: 3})
			s := e.setter("R", "execution.isolation.strategy", iso)
			s.ThreadPoolKey = "RPool"
			var ctxs []context.Context
			cmd := New(s, func(ctx context.Context) (string, error) {
				ctxs = append(ctxs, ctx)
				n := len(ctxs)
				e.clk.Advance(time.Duration(n) * 10 * time.Millisecond) // the n-th attempt takes n x 10 ms
				if n < 3 {
					return "", errBoom
				}
				return "third", nil
			}).WithFallback(fallbackValue("fb"))
			got, err := cmd.Execute(context.Background())
			require.NoError(t, err)
			assert.Equal(t, "third", got, "the last attempt's value, not the fallback's")
			require.Len(t, ctxs, 3)
			assert.NotSame(t, ctxs[0], ctxs[1], "each attempt has its own run context")
			assert.NotSame(t, ctxs[1], ctxs[2])
			assert.NoError(t, ctxs[0].Err(), "a retired attempt's context does not end because run returned")
			assert.Equal(t, ev(metrics.Success, metrics.Failure), cmd.ExecutionEvents())
			assert.Equal(t, 30*time.Millisecond, cmd.ExecutionLatency(), "the last attempt's latency")
			assert.Equal(t, 60*time.Millisecond, cmd.TotalLatency(), "the command's, over every attempt")

			names := e.rec.Names()
			count := func(name string) int {
				return len(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n != name }))
			}
			assert.Equal(t, 1, count("OnStart"), "one execution")
			assert.Equal(t, 3, count("OnExecutionStart"), "three attempts")
			assert.Equal(t, 2, count("OnExecutionError"))
			assert.Equal(t, 1, count("OnExecutionSuccess"))
			assert.Equal(t, 1, count("OnSuccess"), "one outcome")
			assert.Zero(t, count("OnFallbackStart"))

			e.clk.Advance(time.Second)
			e.rt.Metrics().Flush()
			m := e.rt.Metrics().Command("R")
			assert.Equal(t, int64(2), m.CumulativeCount(metrics.Failure), "each attempt counts")
			assert.Equal(t, int64(1), m.CumulativeCount(metrics.Success))
			assert.Equal(t, metrics.NewHealthCounts(3, 2), m.HealthCounts())
			if iso == "THREAD" {
				e.waitPoolIdle("R")
				assert.Equal(t, int64(3), e.rt.Metrics().ThreadPool("RPool").CumulativeCount(metrics.Executed))
			}
			e.assertIdle("R")
		})
	}
}

// An attempt that timed out on a pool goroutine goes on while the next attempt runs: its
// late result changes nothing, and each attempt keeps its result apart (the race detector
// sees the two runs write at once).
func TestALateAttemptChangesNothing(t *testing.T) {
	e := newEnv(t)
	withStage(t, e.rt, fallback{}, retrying{attempts: 2})
	s := e.threadSetter("L", nil, "execution.isolation.thread.timeoutInMilliseconds", "100",
		"execution.isolation.thread.interruptOnTimeout", "false")
	started, secondRunning, release, lateDone := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	cmd := New(s, func(ctx context.Context) (string, error) {
		first := false
		once.Do(func() { first = true })
		if !first {
			close(secondRunning)
			<-lateDone // the late run returns while this one runs
			return "second", nil
		}
		defer close(lateDone)
		close(started)
		<-release
		return "first, late", nil
	})
	out := make(chan string, 1)
	go func() {
		got, err := cmd.Execute(context.Background())
		assert.NoError(t, err)
		out <- got
	}()
	<-started
	e.clk.Advance(100 * time.Millisecond) // the first attempt times out; the second starts
	<-secondRunning
	close(release)
	assert.Equal(t, "second", <-out)
	assert.Equal(t, ev(metrics.Success, metrics.Timeout), cmd.ExecutionEvents())
	e.waitPoolIdle("L")
	e.assertIdle("L")
}

// The chain's fixed bounds hold for every key: a key uses a subset of the layout, so the
// layout's stages and steps bound what any chain holds; a chain beyond them is refused
// when it is made, not when a descent overflows.
func TestTheLayoutFitsTheChainsBounds(t *testing.T) {
	steps := 0
	for _, s := range layout {
		if _, ok := s.(step); ok {
			steps++
		}
	}
	assert.LessOrEqual(t, len(layout), maxStages, "stages in the layout")
	assert.LessOrEqual(t, steps, maxSteps, "steps in the layout")

	var many [maxStages]stage
	for i := range maxSteps + 1 {
		many[i] = onStart{}
	}
	many[maxSteps+1] = run{}
	assert.PanicsWithValue(t, "command: 13 steps follow each other in a chain, more than maxSteps (12)", func() { newChain(many, nil) })
}
