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
	"github.com/rxhystrix/rxhystrix/metrics"
)

// faultyHook fails (or panics in) one method, recording every call.
type faultyHook struct {
	*hooks.RecordingHook
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

func (h faultyHook) OnStart(i hooks.Info) error {
	_ = h.RecordingHook.OnStart(i)
	return h.fail("OnStart")
}

func (h faultyHook) OnExecutionStart(i hooks.Info) error {
	_ = h.RecordingHook.OnExecutionStart(i)
	return h.fail("OnExecutionStart")
}

func (h faultyHook) OnThreadStart(i hooks.Info) error {
	_ = h.RecordingHook.OnThreadStart(i)
	return h.fail("OnThreadStart")
}

func (h faultyHook) OnSuccess(i hooks.Info) {
	h.RecordingHook.OnSuccess(i)
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
		assert.Empty(t, cmd.ExecutionEvents(), "no fallback, no health effect")
		assert.Equal(t, []string{"OnStart"}, e.rec.Names())
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

func TestEventNotifier(t *testing.T) {
	e := newEnv(t)
	var n hooks.RecordingNotifier
	e.rt.Hooks().SetEventNotifier(&n)
	_, err := New(e.setter("N"), e.sleeper(3*time.Millisecond, "x")).WithFallback(fallbackValue("fb")).
		Execute(context.Background())
	require.NoError(t, err)
	_, err = New(e.setter("Open", "circuitBreaker.forceOpen", "true"), value("v")).
		WithFallback(fallbackValue("fb")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []hooks.Mark{{Event: metrics.Success, Key: "N"}, {Event: metrics.ShortCircuited, Key: "Open"},
		{Event: metrics.FallbackSuccess, Key: "Open"}}, n.Marks())
	assert.Equal(t, []hooks.Execution{{Key: "N", Isolation: config.Semaphore, Duration: 3 * time.Millisecond,
		Events: ev(metrics.Success)}}, n.Executions(), "only executions that ran")
	e.assertIdle("N")
	e.assertIdle("Open")
}
