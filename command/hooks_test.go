package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hooks"
	"github.com/rxhystrix/rxhystrix/internal/hooktest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

// faultyHook fails (or panics in) one method, recording every call.
type faultyHook struct {
	*hooktest.RecordingHook
	method string
	panics bool
}

var errHook = errors.New("hook failed")

func (h faultyHook) fail(method string) error {
	if h.method != method {
		return nil
	}
	if h.panics {
		panic("hook exploded")
	}
	return errHook
}

func (h faultyHook) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	_, _ = h.RecordingHook.OnStart(ctx, i)
	return ctx, h.fail("OnStart")
}

func (h faultyHook) OnExecutionStart(ctx context.Context, i hooks.Info) error {
	_ = h.RecordingHook.OnExecutionStart(ctx, i)
	return h.fail("OnExecutionStart")
}

func (h faultyHook) OnThreadStart(ctx context.Context, i hooks.Info) error {
	_ = h.RecordingHook.OnThreadStart(ctx, i)
	return h.fail("OnThreadStart")
}

func (h faultyHook) OnSuccess(ctx context.Context, i hooks.Info) {
	h.RecordingHook.OnSuccess(ctx, i)
	_ = h.fail("OnSuccess")
}

func TestFailingOnStartFailsFast(t *testing.T) {
	for _, panics := range []bool{false, true} {
		e := newEnv(t)
		e.rt.Hooks().SetExecutionHook(faultyHook{RecordingHook: e.rec, method: "OnStart", panics: panics})
		ran := false
		cmd := New(e.setter("H"), func(context.Context) (string, error) {
			ran = true
			return "v", nil
		}).WithFallback(fallbackValue("fb"))
		_, err := cmd.Execute(context.Background())
		runtimeErr(t, err, CommandException)
		if panics {
			var pe *PanicError
			assert.ErrorAs(t, err, &pe)
		} else {
			assert.ErrorIs(t, err, errHook)
		}
		assert.False(t, ran)
		assert.Equal(t, ev(metrics.BadRequest), cmd.ExecutionEvents(), "no fallback, no health effect, but counted")
		assert.Equal(t, []string{"OnStart", "OnError"}, e.rec.Names(), "every OnStart gets its ending call")
		e.assertIdle("H")
	}
}

func TestFailingExecutionStartHookIsARunFailure(t *testing.T) {
	tests := []struct {
		method    string
		isolation string
	}{
		{"OnExecutionStart", "SEMAPHORE"},
		{"OnExecutionStart", "THREAD"},
		{"OnThreadStart", "THREAD"},
	}
	for _, tt := range tests {
		for _, panics := range []bool{false, true} {
			t.Run(tt.method+"/"+tt.isolation, func(t *testing.T) {
				e := newEnv(t)
				e.rt.Hooks().SetExecutionHook(faultyHook{RecordingHook: e.rec, method: tt.method, panics: panics})
				ran := false
				cmd := New(e.setter("H", "execution.isolation.strategy", tt.isolation),
					func(context.Context) (string, error) {
						ran = true
						return "v", nil
					}).WithFallback(fallbackValue("fb"))
				got, err := cmd.Execute(context.Background())
				require.NoError(t, err)
				assert.Equal(t, "fb", got)
				assert.False(t, ran)
				assert.Equal(t, ev(metrics.Failure, metrics.FallbackSuccess), cmd.ExecutionEvents())
				if !panics {
					assert.ErrorIs(t, cmd.FailedExecutionError(), errHook)
				}
				if tt.isolation == "THREAD" {
					e.waitPoolIdle("H")
				}
				e.assertIdle("H")
			})
		}
	}
}

func TestPanickingHookDoesNotChangeTheOutcome(t *testing.T) {
	e := newEnv(t)
	e.rt.Hooks().SetExecutionHook(faultyHook{RecordingHook: e.rec, method: "OnSuccess", panics: true})
	cmd := New(e.setter("H"), value("v"))
	got, err := cmd.Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	assert.Equal(t, ev(metrics.Success), cmd.ExecutionEvents())
	e.assertIdle("H")
}

func TestHookValues(t *testing.T) {
	e := newEnv(t)
	_, _ = New(e.setter("H"), failing(errBoom)).WithFallback(fallbackValue("fb")).Execute(context.Background())
	calls := e.rec.Calls()
	require.Len(t, calls, 8)
	for _, c := range calls {
		assert.Equal(t, hooks.Info{CommandKey: "H", GroupKey: "G", ThreadPoolKey: "G"}, c.Info)
	}
	assert.Equal(t, "OnExecutionError", calls[2].Method)
	assert.Equal(t, errBoom, calls[2].Err)
	assert.Equal(t, "OnFallbackEmit", calls[4].Method)
	assert.Equal(t, "fb", calls[4].Value)
	e.assertIdle("H")
}

// eventsOnly is a recording notifier whose MarkCommandExecution can be left out.
type eventsOnly struct{ *hooktest.RecordingNotifier }

func (eventsOnly) IgnoresExecutions() bool { return true }

// A notifier that leaves MarkCommandExecution out (hooks.ExecutionIgnorer) gets every
// MarkEvent and no MarkCommandExecution.
func TestANotifierCanLeaveOutExecutions(t *testing.T) {
	e := newEnv(t)
	n := eventsOnly{&hooktest.RecordingNotifier{}}
	e.rt.Hooks().SetEventNotifier(n)
	_, err := New(e.setter("N"), value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []hooktest.Mark{{Event: metrics.Success, Key: "N"}}, n.Marks())
	assert.Empty(t, n.Executions())
}

func TestEventNotifier(t *testing.T) {
	e := newEnv(t)
	var n hooktest.RecordingNotifier
	e.rt.Hooks().SetEventNotifier(&n)
	_, err := New(e.setter("N"), e.sleeper(3*time.Millisecond, "x")).WithFallback(fallbackValue("fb")).
		Execute(context.Background())
	require.NoError(t, err)
	_, err = New(e.setter("Open", "circuitBreaker.forceOpen", "true"), value("v")).
		WithFallback(fallbackValue("fb")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []hooktest.Mark{{Event: metrics.Success, Key: "N"}, {Event: metrics.ShortCircuited, Key: "Open"},
		{Event: metrics.FallbackSuccess, Key: "Open"}}, n.Marks())
	assert.Equal(t, []hooktest.Execution{{Key: "N", Isolation: config.Semaphore, Duration: 3 * time.Millisecond,
		Events: ev(metrics.Success)}}, n.Executions(), "only executions that ran")
	e.assertIdle("N")
	e.assertIdle("Open")
}

// spanHook puts a value into the context in OnStart, as a tracing hook puts its span,
// and checks that every later call of the execution sees it and the caller's values.
type spanHook struct {
	*hooktest.RecordingHook
}

type hookCtxKey string

func (h spanHook) OnStart(ctx context.Context, i hooks.Info) (context.Context, error) {
	_, _ = h.RecordingHook.OnStart(ctx, i)
	return context.WithValue(ctx, hookCtxKey("span"), "span-1"), nil
}

func TestHooksSeeTheCallersContextAndWhatOnStartAdded(t *testing.T) {
	for _, iso := range []string{"SEMAPHORE", "THREAD"} {
		t.Run(iso, func(t *testing.T) {
			e := newEnv(t)
			e.rt.Hooks().SetExecutionHook(spanHook{e.rec})
			ctx := context.WithValue(t.Context(), hookCtxKey("caller"), "req-7")
			var runSpan any
			v, err := New(e.setter("Ctx", "execution.isolation.strategy", iso), func(ctx context.Context) (int, error) {
				runSpan = ctx.Value(hookCtxKey("span"))
				return 0, errors.New("boom")
			}).WithFallback(func(ctx context.Context, _ error) (int, error) {
				return 1, nil
			}).Execute(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, v)
			assert.Equal(t, "span-1", runSpan, "run sees the context OnStart returned")
			calls := e.rec.Calls()
			require.NotEmpty(t, calls)
			for _, c := range calls {
				assert.Equal(t, "req-7", c.Ctx.Value(hookCtxKey("caller")), c.Method)
				if c.Method != "OnStart" {
					assert.Equal(t, "span-1", c.Ctx.Value(hookCtxKey("span")), c.Method)
				}
			}
		})
	}
}
