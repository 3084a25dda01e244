package hystrixtest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/cache"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/hystrixtest"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// spyT records what an Expect method reports instead of failing the test.
type spyT struct {
	testing.TB
	errs []string
}

func (s *spyT) Helper() {}

func (s *spyT) Errorf(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

func TestExpectRunsReportsTheDifference(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "GetUser", semaphore)
	dep := hystrixtest.NewDependency(k, "Ada", hystrixtest.Sequence(hystrixtest.OK(), hystrixtest.OK(), hystrixtest.Fail(errDown)))
	for range 3 {
		_, _ = kind.New(dep.Run).WithFallback(fallback).Execute(context.Background())
	}
	assert.True(t, k.Recorder().ExpectRuns(t, "GetUser", "[SUCCESS] x2", "[FAILURE, FALLBACK_SUCCESS]"))

	spy := &spyT{TB: t}
	assert.False(t, k.Recorder().ExpectRuns(spy, "GetUser", "[SUCCESS] x3"))
	require.Len(t, spy.errs, 1)
	assert.Equal(t, "GetUser: runs of executions differ at #1: got \"[SUCCESS] x2\", want \"[SUCCESS] x3\" (2 got, 1 wanted)\n"+
		" got:\n  #1 [SUCCESS] x2\n  #2 [FAILURE, FALLBACK_SUCCESS]\n"+
		"want:\n  #1 [SUCCESS] x3", spy.errs[0])
	assert.False(t, k.Recorder().ExpectRuns(spy, "Other", "[SUCCESS]"), "another key's executions are not these")

	runs := k.Recorder().Runs("GetUser")
	require.Len(t, runs, 2)
	assert.Equal(t, hystrixtest.Run{Events: []metrics.EventType{metrics.Success}, Count: 2}, runs[0])
	assert.Len(t, k.Recorder().Executions(""), 3)
}

func TestAFailedExpectationSummarisesFirstAndFitsAScreen(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "GetUser", semaphore)
	dep := hystrixtest.NewDependency(k, "Ada", hystrixtest.OK())
	for range 200 {
		_, err := kind.New(dep.Run).Execute(context.Background())
		require.NoError(t, err)
	}
	want := slices.Repeat([]string{"OnStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit", "OnExecutionSuccess", "OnSuccess"}, 200)
	want[6*150+5] = "OnError" // the 151st execution's last call
	spy := &spyT{TB: t}
	assert.False(t, k.Recorder().ExpectHooks(spy, "GetUser", want...))
	require.Len(t, spy.errs, 1)
	lines := strings.Split(spy.errs[0], "\n")
	assert.Equal(t, `GetUser: hook calls differ at #906: got "OnSuccess", want "OnError" (1200 got, 1200 wanted)`, lines[0])
	assert.LessOrEqual(t, len(lines), 40, "at most a screenful")
	assert.Contains(t, lines, "  … 903 before")
	assert.Contains(t, lines, "  #906 OnError")
	assert.Contains(t, lines, "  … 281 more")
}

func TestExpectHooksOfASuccess(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "GetUser", semaphore)
	_, err := kind.New(hystrixtest.NewDependency(k, "Ada", hystrixtest.OK()).Run).Execute(context.Background())
	require.NoError(t, err)
	k.Recorder().ExpectHooks(t, "GetUser", "OnStart", "OnExecutionStart", "OnExecutionEmit", "OnEmit", "OnExecutionSuccess", "OnSuccess")
	spy := &spyT{TB: t}
	assert.False(t, k.Recorder().ExpectHooks(spy, "GetUser", "OnStart"))
	assert.Empty(t, k.Recorder().HookCalls("Other"), "the calls of another key")
	require.Len(t, k.Recorder().NotifiedExecutions(), 1)
	assert.Equal(t, []metrics.EventType{metrics.Success}, k.Recorder().NotifiedExecutions()[0].Events)
}

func TestCacheHitShowsTheEventsOfTheExecutionItReplaysAsTheRequestLogDoes(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "GetUser", semaphore, config.ExecutionTimeout.Of(100*time.Millisecond))
	dep := hystrixtest.NewDependency(k, "Ada", hystrixtest.Hang())
	ctx, rc := cache.NewRequestContext(context.Background())
	defer rc.Close()
	for range 3 {
		v, err := kind.New(dep.Run).WithFallback(fallback).WithCacheKey("7").Execute(ctx)
		require.NoError(t, err)
		assert.Equal(t, "fallback", v)
	}
	assert.Equal(t, 1, dep.Calls())
	assert.Equal(t, "GetUser[TIMEOUT, FALLBACK_SUCCESS][100ms], GetUser[TIMEOUT, FALLBACK_SUCCESS, RESPONSE_FROM_CACHE][0ms]x2",
		rc.Log().String())
	k.Recorder().ExpectRuns(t, "GetUser", "[TIMEOUT, FALLBACK_SUCCESS]", "[TIMEOUT, FALLBACK_SUCCESS, RESPONSE_FROM_CACHE] x2")
}

func TestCacheHitWithoutRequestLogIsAnExecutionOfItsOwn(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "GetUser", semaphore, config.RequestLogEnabled.Of(false))
	dep := hystrixtest.NewDependency(k, "Ada", hystrixtest.OK())
	ctx, rc := cache.NewRequestContext(context.Background())
	defer rc.Close()
	for range 2 {
		v, err := kind.New(dep.Run).WithCacheKey("7").Execute(ctx)
		require.NoError(t, err)
		assert.Equal(t, "Ada", v)
	}
	assert.Equal(t, 1, dep.Calls())
	k.Recorder().ExpectRuns(t, "GetUser", "[SUCCESS]", "[RESPONSE_FROM_CACHE]")
}

func TestRecorderKeepsTheHooksAlreadyThere(t *testing.T) {
	reg := hooks.NewRegistry()
	var mine hooktest.RecordingHook
	reg.SetExecutionHook(&mine)
	k := newKit(t, command.WithHooks(reg))
	kind := define(t, k, "GetUser", semaphore)
	_, err := kind.New(hystrixtest.NewDependency(k, "Ada", hystrixtest.OK()).Run).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, mine.Names(), k.Recorder().HookCalls(""))
	assert.Contains(t, mine.Names(), "OnSuccess")
}

func TestExpectTransitionsGivesUpOnTransitionsThatNeverCome(t *testing.T) {
	k := newKit(t)
	kind := define(t, k, "Flaky", semaphore, config.CircuitBreakerRequestVolumeThreshold.Of(2),
		config.CircuitBreakerSleepWindow.Of(time.Second))
	dep := hystrixtest.NewDependency(k, "x", hystrixtest.Sequence(hystrixtest.Fail(errDown), hystrixtest.Fail(errDown), hystrixtest.OK()))
	for range 2 {
		_, _ = kind.New(dep.Run).WithFallback(fallback).Execute(context.Background())
	}
	k.AdvanceUntilQuiet() // the health snapshot at 500 ms opens it
	k.Recorder().ExpectTransitions(t, "Flaky", "CLOSED -> OPEN at 500ms")
	k.Advance(time.Second)
	_, _ = kind.New(dep.Run).WithFallback(fallback).Execute(context.Background())
	k.Recorder().ExpectTransitions(t, "Flaky", "CLOSED -> OPEN at 500ms", "OPEN -> HALF_OPEN at 2s", "HALF_OPEN -> CLOSED at 2s")

	k.SetStuckAfter(50 * time.Millisecond)
	spy := &spyT{TB: t}
	assert.False(t, k.Recorder().ExpectTransitions(spy, "Flaky", "CLOSED -> OPEN at 500ms", "OPEN -> HALF_OPEN at 2s",
		"HALF_OPEN -> CLOSED at 2s", "CLOSED -> OPEN at 3s"))
	require.Len(t, spy.errs, 1)
	assert.Contains(t, spy.errs[0], "Flaky: breaker transitions differ")
}

func TestSettleGivesUpOnACallerThatWaitsOnSomethingElse(t *testing.T) {
	k := newKit(t)
	k.SetStuckAfter(50 * time.Millisecond)
	release := make(chan struct{})
	k.Go(func(context.Context) { <-release })
	defer close(release)
	assert.PanicsWithValue(t, "hystrixtest: caller 1 of Go neither returned nor waited in a scripted call or Sleep for 50ms: "+
		"it waits on something the kit's clock cannot end", k.Settle)
}

func TestSettleRaisesACallersPanic(t *testing.T) {
	k := newKit(t)
	k.Go(func(context.Context) { panic("boom") })
	defer func() {
		p := recover()
		require.NotNil(t, p)
		assert.True(t, strings.HasPrefix(p.(string), "hystrixtest: caller 1 of Go panicked: boom\n"), p)
	}()
	k.AdvanceUntilQuiet()
}
